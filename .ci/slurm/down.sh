#!/bin/bash
# Stops what up.sh started: jobs, slurmd, slurmctld, munged.
set -u
scancel --user=root 2>/dev/null || true
for p in /run/slurmd.fg.pid /run/slurmctld.fg.pid; do
  [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
  rm -f "$p"
done
for i in $(seq 20); do pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break; sleep 0.5; done
runuser -u munge -- /usr/sbin/munged --stop 2>/dev/null || true
exit 0
