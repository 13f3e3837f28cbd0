#!/bin/bash
# The Slurm integration suite: start a single-node Slurm, run the tests
# that need it (MASCOT_SLURM=1), stop the daemons. Run as root from the
# repository root: .ci/slurm/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/up.sh" || { "$here/down.sh"; exit 1; }
MASCOT_SLURM=1 go test -count=1 -timeout 15m ./runner/slurm/... "$@"
rc=$?
"$here/down.sh"
exit $rc
