#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, everything under DIR (config, state, logs, munge socket).
#   tests/slurm_cluster.sh start DIR   write DIR/slurm.conf (+ gres.conf: one GPU resource), start munged, slurmctld, slurmd; wait for an idle node
#   tests/slurm_cluster.sh stop DIR    stop the three daemons started for DIR
# Then use it with SLURM_CONF=DIR/slurm.conf (sbatch, squeue, sinfo). Needs root and Debian's slurm-wlm + munge.
# Ports: SLURM_TEST_CTLD_PORT / SLURM_TEST_SLURMD_PORT (default 6817 / 6818).
set -euo pipefail
action=${1:?usage: slurm_cluster.sh start|stop DIR}
dir=$(mkdir -p "${2:?usage: slurm_cluster.sh start|stop DIR}" && cd "$2" && pwd)
export SLURM_CONF=$dir/slurm.conf

stop() {
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      pid=$(cat "$dir/$daemon.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do  # wait until it has exited (a zombie counts as exited), so its port is free
        [ -d "/proc/$pid" ] && ! grep -q ') Z ' "/proc/$pid/stat" 2>/dev/null || break
        sleep 0.2
      done
      rm -f "$dir/$daemon.pid"
    fi
  done
}

if [ "$action" = stop ]; then stop; exit 0; fi
[ "$action" = start ] || { echo "error: action=$action must be start or stop" >&2; exit 2; }

host=$(hostname -s)
memory=$(free -m | awk '/^Mem:/ {print $2}')
# the CPUs slurmd will register (nproc would follow OMP_NUM_THREADS, and a node with fewer CPUs than
# configured is set INVAL: "Low socket*core*thread count, Low CPUs")
cpus=$(slurmd -C | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# munge: its own key and socket under DIR, so nothing system-wide is touched
[ -f "$dir/munge/munge.key" ] || { dd if=/dev/urandom bs=1 count=1024 of="$dir/munge/munge.key" 2>/dev/null; }
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed"

cat >"$SLURM_CONF" <<EOF
ClusterName=course
SlurmctldHost=$host
SlurmctldPort=${SLURM_TEST_CTLD_PORT:-6817}
SlurmdPort=${SLURM_TEST_SLURMD_PORT:-6818}
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MpiDefault=none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
GresTypes=gpu
NodeName=$host CPUs=$cpus RealMemory=$memory Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# one GPU generic resource, enough for the scheduler to accept and place jobs that ask for --gres=gpu:1 (the paper
# scripts' line); the jobs then run on the CPU, where no GPU is. SLURM 22.05's slurmd drops a GPU without a device
# file ("Removing file-less GPU"), so it names /dev/null (no cgroup device constraint is configured here)
cat >"$dir/gres.conf" <<EOF
NodeName=$host Name=gpu Count=1 File=/dev/null
EOF

slurmctld -f "$SLURM_CONF" -i   # -i: ignore state left by an earlier cluster in DIR
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  if sinfo --noheader --Node --format=%t 2>/dev/null | grep -q idle; then
    echo "slurm cluster up: export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 1
done
echo "error: the node is not idle after 60 s ($(sinfo --noheader --Node --format='%t %E' 2>&1 | head -1));" \
  "see $dir/slurmctld.log and $dir/slurmd.log" >&2
stop
exit 1
