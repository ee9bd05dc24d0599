"""The conformance suite shipped with pytest-rspbench (the ``specs/`` folder).

Installed as the package ``rspbench_specs`` so ``pytest --rspbench-suite
conformance`` finds it without a checkout of the repository. It holds only
spec files and their data; there is no code here.
"""
