package data

import "modernc.org/sqlite"

// removeAuthorizer takes the authorizer off a dataset's connection, to
// show what query_only alone enforces.
func removeAuthorizer(ds *dataset) error {
	return ds.conn.Raw(func(dc any) error {
		return dc.(sqlite.AuthorizerRegisterer).RegisterAuthorizer(nil)
	})
}
