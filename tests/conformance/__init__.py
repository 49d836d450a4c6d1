"""The mirt conformance suite: mirt's own test cases run in R and through irtbridge (marker ``conformance``).

``runner.py`` runs the whole registry and writes the table of docs/coming-from-r.md; the tests in
``test_mirt_conformance.py`` keep the registry whole and a few representative cases equal to mirt.
"""
