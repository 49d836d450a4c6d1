"""Calibration engines: one module each, every one with the same ``fit(request: FitRequest)``.

What each engine takes and what its fits can do is data, one row per engine, in the engine table
(:data:`irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`): every front door of
:mod:`irtbridge.calibration.fit` checks a call against that row once, builds the request
(:class:`~irtbridge.calibration.engines.request.FitRequest`) and hands it to the row, whose ``fit`` imports
the engine's module here by name. Nothing below the dispatch re-checks the options the table already
answered.

* :mod:`~irtbridge.calibration.engines.mirt`: R's mirt, every design (with a module per design of its own:
  :mod:`~irtbridge.calibration.engines.mirt_groups`, :mod:`~irtbridge.calibration.engines.mirt_classes`,
  :mod:`~irtbridge.calibration.engines.mirt_explanatory`), through
  :mod:`~irtbridge.calibration.engines.rbacked` (the R call and its result);
* :mod:`~irtbridge.calibration.engines.ltm`: R's ltm;
* :mod:`~irtbridge.calibration.engines.native`: the native EM (:mod:`irtbridge.em`), without R;
* :mod:`~irtbridge.calibration.engines.request`: what a front door hands an engine.

The table's names read here before lived in this module; they still do, with a DeprecationWarning naming
their new home. Adding an engine is a row of the table and a module here with ``fit(request)``.
"""

from __future__ import annotations

from irtbridge._moved import moved_names

__all__: list[str] = []

__getattr__ = moved_names(__name__, {
    "ENGINE_TABLE": "irtbridge.calibration.inputs.engine_table",
    "Engine": "irtbridge.calibration.inputs.engine_table",
    "engine": "irtbridge.calibration.inputs.engine_table",
    "DESIGNS": "irtbridge.calibration.inputs.engine_table",
    "FitRequest": "irtbridge.calibration.engines.request",
})
