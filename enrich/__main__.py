import sys

from enrich.cli import main

sys.exit(main())
