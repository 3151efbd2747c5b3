// Package policy owns what the agent may do — Permissions — and what may
// leave the machine — Outbound. It decides; it never runs tools, touches the
// file system or opens connections. The engine asks it before every tool
// call and acts on the answer: run, ask the user, or refuse.
//
// Everything here fails closed: input the package cannot read with
// certainty (a malformed argument object, a shell command it cannot parse
// or whose program is only known at run time, a URL without a clear host)
// is never covered by an allow rule, while deny rules still see as much of
// it as can be made out. Shell command lines are read by package shellcmd,
// the one reading the shell tool's risk classes use too.
package policy
