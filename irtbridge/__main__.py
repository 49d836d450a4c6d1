"""`python -m irtbridge` is the `irtbridge` command."""

import sys

try:
    from irtbridge.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line itself is imported: one line, as at any other moment
    _named = next((a for a in sys.argv[1:] if not a.startswith("-")), "")
    _named = f" {_named}" if _named.replace("-", "").isalpha() and _named.islower() else ""
    print(f"irtbridge{_named}: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
