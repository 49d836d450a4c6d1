"""`python -m irtbridge` is the `irtbridge` command."""

import sys

from irtbridge.cli import main

sys.exit(main())
