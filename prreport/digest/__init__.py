"""The weekly digest: merged PRs of a time window, analysed concurrently, cached, summed up."""
