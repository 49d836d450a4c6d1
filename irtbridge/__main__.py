"""`python -m irtbridge` is the `irtbridge` command."""

import sys

try:
    from irtbridge.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line itself is imported: one line, as at any other moment
    print("irtbridge: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
