"""The report: from a bundle and its findings to the language-neutral ReportModel the renderers read."""
