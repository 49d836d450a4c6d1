"""Every exported function of R's ltm, by its R name: ``irtbridge.ltm.cronbach_alpha(data)``.

The same typed passthrough as :mod:`irtbridge.mirt` (names, argument and conversion rules are
described there); ltm's fits (``rasch``, ``tpm``, ``grm``, ``gpcm``) come back as opaque ``RObject``
handles to pass on to ltm's other functions (``factor_scores``, ``item_fit``, ``GoF_rasch``...).
Functions that take an R formula (``ltm(data ~ z1)``) are out of reach, as formulas would have to be
R source: use ``irtbridge.calibrate(data, "2PL", engine="ltm")``.

>>> import irtbridge
>>> from irtbridge.example_data import response_dataset
>>> lsat = response_dataset("LSAT7")                                      # doctest: +R
>>> round(irtbridge.ltm.cronbach_alpha(lsat)["alpha"], 4)                 # cronbach.alpha(data)$alpha
0.4534
"""

import irtbridge._rfunctions as _rfunctions


def __getattr__(name: str):
    return _rfunctions.module_getattr("ltm", name)


def __dir__() -> list[str]:
    return _rfunctions.module_dir("ltm", list(globals()))
