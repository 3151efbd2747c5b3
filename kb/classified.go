package kb

import "context"

type classifiedKey struct{}

// withClassified marks ctx as carrying the text of a classified document,
// for the Embedder or Reranker that receives it.
func withClassified(ctx context.Context, rule string) context.Context {
	return context.WithValue(ctx, classifiedKey{}, rule)
}

// ClassifiedFrom reports that the texts an Embedder or Reranker is asked
// to process under ctx come from a classified document (a path rule, which
// the texts themselves may not show), and the rule. A client that sends
// them off the machine must refuse: only a local server may receive them.
func ClassifiedFrom(ctx context.Context) (rule string, ok bool) {
	rule, ok = ctx.Value(classifiedKey{}).(string)
	return rule, ok && rule != ""
}
