// The `visage` command line; its code is the VisageCommandLine library (docs/cli.md).
import VisageCommandLine

Visage.main()
