"""Many analyses at once on Dask distributed: ``irtbridge batch MANIFEST``.

A *manifest* lists units of work; each unit is one input file and one kind of analysis:

================  ==========================================  ======================================
kind              input (``data``) and options                writes (into ``OUT/units/<id>/``)
================  ==========================================  ======================================
``calibrate``     responses CSV (respondents x items);         ``items.csv``, ``standard_errors.csv``,
                  ``model`` (2PL), ``engine`` (mirt),          ``abilities.csv`` (native EAP),
                  ``id_column``, ``drop_constant``            ``calibration.json``            [R]
``dataset``       a classification CSV and its ``target``;    ``items.csv``, ``respondents.csv``,
                  any :class:`irtbridge.pipeline.Settings`     ``responses.csv``, ``ei.csv`` (binary)
                  field (``max_items``, ``pool``, ...)        — the per-dataset unit of
                                                              ``irtbridge evaluate``          [R]
``hardness``      labels and model scores; ``label``,         ``instances.csv`` (every method),
                  ``scores`` (columns), ``threshold``, ``id``  ``classes.csv``
``ei``            2 x 2 tables: columns ``tp, fp, fn, tn``    ``ei.csv`` (EI family + intervals)
                  (``name``: a label column); ``level``,
                  ``ci_method``, ``correction``
``rate``          matches CSV (period, player, opponent,      ``ratings.csv``, ``history.csv``
                  score); ``tau``
================  ==========================================  ======================================

Every unit folder also holds ``unit.json`` (what ran, where, how long, the R warnings). A manifest is
JSON::

    {"output": "results",                 # optional; relative to the manifest's folder
     "retries": 1,                        # optional: re-runs of a unit that raised (default 1)
     "units": [
        {"id": "lsat", "kind": "calibrate", "data": "lsat.csv", "options": {"model": "2PL"}},
        {"id": "sonar", "kind": "dataset", "data": "sonar.csv", "target": "Class"}
     ]}

or CSV with columns ``id, kind, data`` and optionally ``target`` and ``options`` (a JSON object).
Relative ``data`` paths are relative to the manifest.

Guarantees
----------
* **Atomic results.** A unit computes into a hidden temporary folder and renames it into place when
  every file is written; a folder ``OUT/units/<id>`` is therefore always complete.
* **Resume.** A rerun skips every unit whose folder exists with the same fingerprint (kind, options and
  a SHA-256 of the input file); a changed input or option is recomputed.
* **Failures stay local.** A unit that raises is retried ``retries`` times, then reported with its
  error in ``OUT/batch.json``; the other units are unaffected. A worker that dies (killed, out of
  memory) is replaced and its units are recomputed elsewhere (Dask's ``allowed-failures``).
* **One R per worker, never forked.** Workers are separate processes started with the ``spawn``
  method (``distributed.worker.multiprocessing-method``), one thread each; each embeds its own R on
  its first R-backed unit. The driver never starts R.
"""


from irtbridge.batch.kinds import KINDS
from irtbridge.batch.manifest import Manifest, Unit, load_manifest
from irtbridge.batch.run import BatchResult, is_complete, local_cluster, run_batch, run_unit
from irtbridge.exceptions import UnitError

__all__ = ["KINDS", "Unit", "Manifest", "BatchResult", "UnitError", "load_manifest", "run_unit", "run_batch",
           "local_cluster", "is_complete"]
