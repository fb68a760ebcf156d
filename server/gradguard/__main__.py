"""`python -m gradguard` is the same as the `gradguard` command."""

from gradguard.cli import main

raise SystemExit(main())
