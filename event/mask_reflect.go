package event

import (
	"encoding/json"
	"reflect"
)

// maskReflect returns a masked copy of v when one of its strings held a
// secret (changed), v itself otherwise. Unexported fields are copied as they
// are; depth bounds a cyclic structure.
func maskReflect(v reflect.Value, depth int) (out reflect.Value, changed bool) {
	if !v.IsValid() || depth > 32 {
		return v, false
	}
	switch v.Kind() {
	case reflect.String:
		m, kinds := MaskString(v.String())
		if kinds == nil {
			return v, false
		}
		return reflect.ValueOf(m).Convert(v.Type()), true
	case reflect.Struct:
		var cp reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			m, ch := maskReflect(v.Field(i), depth+1)
			if !ch {
				continue
			}
			if !cp.IsValid() {
				cp = reflect.New(v.Type()).Elem()
				cp.Set(v)
			}
			cp.Field(i).Set(m)
		}
		if cp.IsValid() {
			return cp, true
		}
		return v, false
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			b := v.Bytes()
			m := maskJSONBytes(b)
			if len(m) == len(b) && (len(b) == 0 || &m[0] == &b[0]) {
				return v, false
			}
			return reflect.ValueOf(json.RawMessage(m)), true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v, false // bytes: not text
		}
		return maskElems(v, depth, func() reflect.Value {
			cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(cp, v)
			return cp
		})
	case reflect.Array:
		return maskElems(v, depth, func() reflect.Value {
			cp := reflect.New(v.Type()).Elem()
			cp.Set(v)
			return cp
		})
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		var cp reflect.Value
		it := v.MapRange()
		for it.Next() {
			if _, ch := maskReflect(it.Value(), depth+1); ch {
				cp = reflect.MakeMapWithSize(v.Type(), v.Len())
				break
			}
		}
		if !cp.IsValid() {
			return v, false
		}
		it = v.MapRange()
		for it.Next() {
			m, _ := maskReflect(it.Value(), depth+1)
			cp.SetMapIndex(it.Key(), m)
		}
		return cp, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		m, ch := maskReflect(v.Elem(), depth+1)
		if !ch {
			return v, false
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(m)
		return p, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		m, ch := maskReflect(v.Elem(), depth+1)
		if !ch {
			return v, false
		}
		cp := reflect.New(v.Type()).Elem()
		cp.Set(m)
		return cp, true
	}
	return v, false
}

// maskElems masks the elements of a slice or array, copying it (with
// clone) only when an element changes: the input is never mutated.
func maskElems(v reflect.Value, depth int, clone func() reflect.Value) (reflect.Value, bool) {
	var cp reflect.Value
	for i := range v.Len() {
		m, ch := maskReflect(v.Index(i), depth+1)
		if !ch {
			continue
		}
		if !cp.IsValid() {
			cp = clone()
		}
		cp.Index(i).Set(m)
	}
	if cp.IsValid() {
		return cp, true
	}
	return v, false
}
