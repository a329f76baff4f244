#!/bin/bash
# Run CMD with the kernel's tcp tracepoints recorded (root; benchmark only, never in the tests).
#   usage: bench/linux/tcp_tracepoints.sh OUTDIR CMD...
# Records tcp:tcp_sendmsg_locked (each copy of a sendmsg into an skb, with size_goal),
# tcp:tcp_probe (every segment a socket of any namespace receives: cwnd, rcv_wnd, ...),
# tcp:tcp_rcv_space_adjust (each read), tcp:tcp_rcvbuf_grow, tcp:tcp_cong_state_set and
# tcp:tcp_retransmit_skb into OUTDIR/trace.txt, on CLOCK_MONOTONIC. Mounts tracefs if it is not
# mounted, and on exit (also on error or Ctrl-C) disables the events and restores the buffer
# size, trace clock and tracing_on it found, and unmounts what it mounted.
# Kernel runs: flock /work/kernel.lock .../pause.sh bench/linux/tcp_tracepoints.sh OUT python ...
set -u
out=$1; shift
mkdir -p "$out"
T=/sys/kernel/tracing
EVENTS="tcp_sendmsg_locked tcp_probe tcp_rcv_space_adjust tcp_rcvbuf_grow tcp_cong_state_set tcp_retransmit_skb"
mounted=0
if [ ! -e $T/events/tcp ]; then mount -t tracefs nodev $T && mounted=1; fi
old_on=$(cat $T/tracing_on)
old_buf=$(grep -o "expanded: [0-9]*" $T/buffer_size_kb | grep -o "[0-9]*" || cat $T/buffer_size_kb)
old_clock=$(grep -o "\[[a-z0-9_-]*\]" $T/trace_clock | tr -d "[]")
cleanup() {
  echo 0 > $T/tracing_on
  for e in $EVENTS; do echo 0 > $T/events/tcp/$e/enable; done
  cat $T/trace > "$out/trace.txt"
  echo > $T/trace
  echo "$old_buf" > $T/buffer_size_kb
  echo "$old_clock" > $T/trace_clock
  echo "$old_on" > $T/tracing_on
  if [ $mounted = 1 ]; then umount $T; fi
}
trap cleanup EXIT
echo 0 > $T/tracing_on
echo > $T/trace
echo 200000 > $T/buffer_size_kb
echo mono > $T/trace_clock
for e in $EVENTS; do echo 1 > $T/events/tcp/$e/enable; done
echo 1 > $T/tracing_on
"$@"
