package kb

// The three tools read knowledge bases, which change between turns
// (documents ingested, edited, removed): each implements tools.Retrieval,
// so that the engine sends an earlier turn's result as a placeholder and
// the agent searches again rather than trust it (seed 000).

// Retrieval implements tools.Retrieval.
func (*search) Retrieval() bool { return true }

// Retrieval implements tools.Retrieval.
func (*read) Retrieval() bool { return true }

// Retrieval implements tools.Retrieval.
func (*list) Retrieval() bool { return true }
