#!/usr/bin/env bash
# Brings up a one-node Slurm cluster on this machine for the tests that
# submit to Slurm (cmd/prcaps TestSlurmSubmit): munged, slurmctld and
# slurmd from Debian's packages, with a slurm.conf for one node (this
# host, its cores, 80% of its memory), root as SlurmUser, no cgroups
# (proctrack/linuxproc, task/none) and no accounting. It installs the
# packages when apt-get can and they are missing, and does nothing when
# the cluster already answers. Run as root; about 20 s from packages
# installed. Exits non-zero, with the daemons' logs, if the node does not
# come up idle within 60 s.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  echo "slurm-up: needs root (it starts munged, slurmctld and slurmd)" >&2
  exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)

if sinfo -h -n "$host" -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then
  echo "slurm-up: node $host already up"
  exit 0
fi

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat >/etc/slurm/slurm.conf <<CONF
# One-node cluster for prcaps' tests (tools/slurm-up.sh).
ClusterName=prcaps
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MinJobAge=3600
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

chown munge:munge /run/munge
chmod 0755 /run/munge
if ! pgrep -u munge -x munged >/dev/null; then
  runuser -u munge -- munged
fi
if ! pgrep -x slurmctld >/dev/null; then
  slurmctld
fi
if ! pgrep -x slurmd >/dev/null; then
  slurmd
fi

for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  case "$state" in
  idle | mixed | allocated)
    echo "slurm-up: node $host $state ($cpus CPUs, ${mem_mb} MiB)"
    exit 0
    ;;
  esac
  sleep 1
done
echo "slurm-up: node $host did not come up (state: ${state:-none})" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
