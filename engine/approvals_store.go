package engine

// storeApprovalsOf is the store's approvals when it keeps them.
func storeApprovalsOf(Store) (approvalBackend, bool) { return nil, false }
