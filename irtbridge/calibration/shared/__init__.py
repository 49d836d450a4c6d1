"""What the results and the analyses of a fit share, kept below both so that neither reaches into the other.

* :mod:`~irtbridge.calibration.shared._stored`: values a result computes on demand (mirt's M2, reliability),
  kept on the result once computed, so that ``summary()`` shows them without calling R;
* :mod:`~irtbridge.calibration.shared._columns`: tables whose renamed columns still read by their old names
  (the deprecated forms of the naming rule of :mod:`irtbridge.calibration.results._base`);
* :mod:`~irtbridge.calibration.shared._live`: the live R model behind a fit, or a one-line error saying why
  there is none.

Nothing is imported here, and nothing here imports another room of :mod:`irtbridge.calibration`.
"""
