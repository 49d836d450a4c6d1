"""The old home of ``irtbridge benchmark``'s runner, now :mod:`irtbridge.pipeline.benchmark` (named like its
command): its names are served from there with a DeprecationWarning (:mod:`irtbridge._moved`)."""

from irtbridge._moved import moved_names

__getattr__ = moved_names(__name__, {"BenchmarkResult": "irtbridge.pipeline.benchmark",
                                     "run_benchmark": "irtbridge.pipeline.benchmark"})
