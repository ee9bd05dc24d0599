"""Judging one case: the expected output against the actual one.

:mod:`.strict` is the strict verdict over t0 classes (CSRBench, RSP-QL
"Correctness in practice"), :mod:`.metrics` the per-window precision, recall
and delay (YABench), :mod:`.alignment` which actual relation stands for which
window, :mod:`.gracious` YABench's gracious mode, :mod:`.mismatch` LSBench's
mismatch between engines and :mod:`.sweep` load sweeps.
"""
