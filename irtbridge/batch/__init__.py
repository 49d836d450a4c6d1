"""Many analyses at once on Dask distributed: ``irtbridge batch MANIFEST``.

A *manifest* lists units of work; each unit is one input file and one kind of analysis:

================  ==========================================  ======================================
kind              input (``data``) and options                writes (into ``OUT/units/<id>/``)
================  ==========================================  ======================================
``calibrate``     responses CSV (respondents x items);        ``items.csv``, ``standard_errors.csv``,
                  the IRT options below, ``se`` (true)        ``calibration.json``,
                                                              ``abilities.csv``               [R]
``abilities``     responses CSV; the IRT options below, or    ``abilities.csv`` (``theta``, ``se``;
                  ``calibration`` (a calibrate unit's         ``irtbridge abilities``)        [R]
                  ``calibration.json``, relative to the       (with ``calibration``: R-free,
                  manifest) with ``scoring_method``           plus ``at_bound``)
                  EAP/MAP/ML and ``id_column``
``fit``           responses CSV; the IRT options below        ``fit.json`` (``irtbridge fit --json``),
                  (engine mirt)                               ``item_fit.csv`` (S-X2)         [R]
``dataset``       a classification CSV and its ``target``;    ``items.csv``, ``respondents.csv``,
                  any :class:`irtbridge.pipeline.Settings`    ``responses.csv``, ``ei.csv`` (binary)
                  field (``max_items``, ``pool``, ...)        — the per-dataset unit of
                                                              ``irtbridge evaluate``          [R]
``hardness``      labels and model scores; ``label``,         ``instances.csv`` (every method),
                  ``scores`` (columns), ``threshold``,        ``classes.csv``
                  ``id``
``ei``            2 x 2 tables: columns ``tp, fp, fn, tn``    ``ei.csv`` (EI family + intervals)
                  (``name``: a label column); ``level``,
                  ``ci_method``, ``correction``, ``n_boot``,
                  ``random_state``
``rate``          matches CSV (period, player, opponent,      ``ratings.csv``, ``history.csv``
                  score); ``tau``
================  ==========================================  ======================================


The IRT options (``calibrate``, ``abilities``, ``fit``): ``model`` (2PL; or one per item, mirt),
``engine`` (mirt, ltm or native), ``id_column``, ``drop_constant`` (false), ``estimation_method``
(mirt's EM, QMCEM, MCEM, MHRM, SEM, BL: :func:`irtbridge.calibrate`'s ``method``), ``scoring_method``
(EAP, MAP, ML, WLE: the abilities' method, default EAP; not for ``fit``), ``dims``, ``seed``, ``priors``,
and the engine's estimation options by its own names (``quadpts``, ``TOL``, ``technical``,
``SE_type``, ...). ``method`` alone is refused: it would mean one thing in ``irtbridge calibrate
--method`` and another in ``irtbridge abilities --method``. Abilities are the engine's own scores of the
data the fit was made from (mirt's ``fscores``), so items coded 1..K score as calibrated.

Every unit folder also holds ``unit.json`` (what ran, where, how long, the R warnings). A manifest is
JSON::

    {"output": "results",                 # optional; relative to the manifest's folder
     "retries": 1,                        # optional: re-runs after a transient error (default 1)
     "units": [
        {"id": "lsat", "kind": "calibrate", "data": "lsat.csv", "options": {"model": "2PL"}},
        {"id": "lsat-wle", "kind": "abilities", "data": "lsat.csv", "options": {"scoring_method": "WLE"}},
        {"id": "sonar", "kind": "dataset", "data": "sonar.csv", "target": "Class"}
     ]}

or CSV with columns ``id, kind, data`` and optionally ``target`` and ``options`` (a JSON object).
Relative ``data`` paths are relative to the manifest.

Guarantees
----------
* **Checked whole first.** The manifest is read and checked before any unit runs: its keys, every
  unit's id, kind, input file, option names and option types (``"se": "false"`` is an error, not
  true) and what the engine accepts (:mod:`irtbridge.batch.options`). Every problem is reported in one
  line naming the unit and the option; the CLI exits 2 and nothing is touched.
* **Atomic results.** A unit computes into a hidden temporary folder and renames it into place when
  every file is written; a folder ``OUT/units/<id>`` is therefore always complete.
* **Results never outlive their input.** A unit that fails replaces its folder by one holding only
  ``unit.json`` with ``"status": "failed"``, the error and the digest of the input that failed: the
  previous results (of an earlier input) are removed, never left beside a failure. ``batch.json`` and
  every ``unit.json`` agree on each unit's status.
* **Resume.** A rerun skips every unit whose folder holds a finished result with the same fingerprint
  (kind, options and a SHA-256 of the input file); a changed input or option, or a failed unit, is
  recomputed.
* **Failures stay local.** A unit that raises is reported with its error in ``OUT/batch.json``; the
  other units are unaffected. Only a transient error (the file system, memory: :func:`is_transient`)
  is retried, ``retries`` times; an error the same input would raise again (bad data, a refused option,
  an R error) is reported at once. A worker that dies (killed, out of memory) is replaced and its units
  are recomputed elsewhere (Dask's ``allowed-failures``).
* **One R per worker, never forked.** Workers are separate processes started with the ``spawn``
  method (``distributed.worker.multiprocessing-method``), one thread each; each embeds its own R on
  its first R-backed unit. The driver never starts R.
"""


from irtbridge.batch.kinds import KINDS
from irtbridge.batch.manifest import Manifest, load_manifest
from irtbridge.batch.options import KIND_OPTIONS
from irtbridge.batch.run import BatchResult, is_complete, is_transient, local_cluster, mark_failed, run_batch, run_unit
from irtbridge.batch.unit import Unit
from irtbridge.exceptions import UnitError

__all__ = ["KINDS", "KIND_OPTIONS", "Unit", "Manifest", "BatchResult", "UnitError", "load_manifest", "run_unit",
           "run_batch", "local_cluster", "is_complete", "is_transient", "mark_failed"]
