"""Benchmark suites: strict manifests, the asset cache, and which tasks a run draws from them.

``manifest`` (the manifest model and its strict validation), ``assets`` (the asset cache and its
checks: missing, size, SHA-256, Git LFS pointer stubs) and ``registry`` (suite discovery,
``--suite``/``--profile`` selection, lenient task loading, and the strict-status rows of a
suite that may not run).
"""
