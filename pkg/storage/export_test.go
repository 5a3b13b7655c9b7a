package storage

// SetListPageSize makes S3Store.List ask for n keys per request, so that a
// test's few objects span several pages; restore puts the default back.
func SetListPageSize(n int32) (restore func()) {
	old := listPageSize
	listPageSize = n
	return func() { listPageSize = old }
}
