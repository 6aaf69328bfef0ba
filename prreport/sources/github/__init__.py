"""The GitHub source (PyGithub): one PR as a bundle, the PRs merged in a window, the shared client."""
