"""Reports of a saved strategy for reading outside the terminal (``distcfr.report.html``)."""
