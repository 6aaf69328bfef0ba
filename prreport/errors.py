"""The one exception family for errors a user can cause (bad input, config, network)."""

from __future__ import annotations


class PrreportError(Exception):
    """An error the user can fix; the CLI prints it as one line and exits with status 2."""

    exit_code = 2


class ConfigError(PrreportError):
    """A malformed or invalid configuration file, environment variable or flag."""


class SourceError(PrreportError):
    """The source (git repository, GitHub, bundle file) could not provide the pull request."""


class BundleError(SourceError):
    """A saved bundle file is unreadable, malformed or of an unknown schema version."""


class GitHubError(SourceError):
    """The GitHub API refused or failed a request (auth, not found, rate limit, network)."""


class OutputError(PrreportError):
    """A report could not be written where it was asked to go."""
