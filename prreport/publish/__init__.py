"""Every GitHub write: the PR report comment (and job summary) and the weekly digest issue."""
