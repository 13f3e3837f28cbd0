#!/bin/bash
# Installs (if needed) and starts a single-node Slurm with munge and two
# fake GPUs, as root, without systemd (docs/design/slurm-test-cluster.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge
fi
install -d -o munge -g munge -m 0755 /run/munge
[ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey -c
chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge 2>/dev/null | grep -q 'STATUS:.*Success'; then
  runuser -u munge -- /usr/sbin/munged
  for i in $(seq 20); do munge -n 2>/dev/null | unmunge 2>/dev/null | grep -q 'STATUS:.*Success' && break; sleep 0.5; done
fi
install -d /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
cpus=$(nproc)
sed -e "s/@HOST@/localhost/" -e "s/@NODE@/localhost/" -e "s/@CPUS@/$cpus/" "$here/slurm.conf.in" >/etc/slurm/slurm.conf
echo 'Name=gpu File=/dev/fakegpu[0-1]' >/etc/slurm/gres.conf
for i in 0 1; do [ -e /dev/fakegpu$i ] || mknod -m 0666 /dev/fakegpu$i c 1 3; done
setsid slurmctld -D -c >/var/log/slurm/slurmctld.stdout 2>&1 & echo $! >/run/slurmctld.fg.pid
setsid slurmd -D >/var/log/slurm/slurmd.stdout 2>&1 & echo $! >/run/slurmd.fg.pid
for i in $(seq 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE 'idle|mixed'; then break; fi
  if [ "$i" = 20 ]; then scontrol update nodename=localhost state=resume 2>/dev/null || true; fi
  sleep 1
done
sinfo
if ! sinfo -h -o '%T' | grep -qE 'idle|mixed'; then
  echo "slurm did not come up" >&2
  tail -n 30 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log /var/log/slurm/*.stdout >&2 || true
  exit 1
fi
