# Cohen & Levin, "To Drop or Not to Drop" (Fig. 1, Sec. VI) in plain ns-2.35.
#
# Generated parameters come first (bench/ns2/papers/drop_forward.py writes them as `set`
# lines above this file's text); this file is the model. README.md beside it lists every
# stand-in and what it leaves out.
#
# Network: sender -> fcp (10 ms) -> bs(0), bs(1) (25 ms each); each mobile m(i) has a
# private duplex link to each base station (5 ms, wireless rate); bs(0) <-> bs(1) is the
# forwarding path (fwd_delay, fwd_bps). One one-way TCP agent per mobile at the sender, its
# sink at the mobile. Every mobile starts at bs(0).
#
# A handover of mobile i from base station a to b (at one instant, Sec. III.A):
#   - the FCP's route for m(i) and the mobile's route to the sender move to b;
#   - the packets queued at a for m(i) meet the scheme: `$q reset` drops every queued packet
#     into the queue's drop target, which is the link's drop path (drop) or, for forward
#     and rearrange, the head of the forwarding link a -> b (so they are forwarded in order);
#   - a's route for m(i) becomes the null agent (drop) or the forwarding link (forward):
#     every packet reaching a later meets the scheme too (those on the fcp -> a link);
#   - rearrange: b holds the direct packets for m(i) in a queue of its own until an end
#     marker, sent at the handover instant into the fcp -> a link behind every packet on it
#     and forwarded by a behind every forwarded packet, reaches b; then the held packets go,
#     in order, into b's wireless queue.
# Forwarded packets leave the forwarding link through a classifier of their own (fwdexit),
# not through the node's, so that under rearrange they go straight into the wireless queue
# while direct packets are held.

set ns [new Simulator]
set rng [new RNG]
for {set k 0} {$k < $seed} {incr k} { $rng next-substream }

set sender [$ns node]
set fcp [$ns node]
set bs(0) [$ns node]
set bs(1) [$ns node]
$ns duplex-link $sender $fcp $backbone_bps $sender_fcp_delay DropTail
$ns queue-limit $sender $fcp [expr {$backbone_q + 1}]
$ns queue-limit $fcp $sender [expr {$backbone_q + 1}]
foreach b {0 1} {
    $ns duplex-link $fcp $bs($b) $backbone_bps $fcp_bs_delay DropTail
    $ns queue-limit $fcp $bs($b) [expr {$backbone_q + 1}]
    $ns queue-limit $bs($b) $fcp [expr {$backbone_q + 1}]
}
$ns duplex-link $bs(0) $bs(1) $fwd_bps $fwd_delay DropTail
$ns queue-limit $bs(0) $bs(1) [expr {$fwd_q + 1}]
$ns queue-limit $bs(1) $bs(0) [expr {$fwd_q + 1}]

set null [$ns set nullAgent_]
for {set i 0} {$i < $mobiles} {incr i} {
    set m($i) [$ns node]
    foreach b {0 1} {
        $ns duplex-link $bs($b) $m($i) $wireless_bps $bs_mobile_delay DropTail
        $ns queue-limit $bs($b) $m($i) [expr {$bs_buffer + 1}]
        $ns queue-limit $m($i) $bs($b) [expr {$bs_buffer + 1}]
    }
    set at($i) 0
    set hid($i) 0
    set holding($i) 0
    switch $recovery {
        reno    { set tcp($i) [new Agent/TCP/Reno];    set sink($i) [new Agent/TCPSink] }
        newreno { set tcp($i) [new Agent/TCP/Newreno]; set sink($i) [new Agent/TCPSink] }
        sack    { set tcp($i) [new Agent/TCP/Sack1];   set sink($i) [new Agent/TCPSink/Sack1] }
    }
    $tcp($i) set window_ $window_pkts
    # A candidate tested in ns-2 itself (drop_forward.py --set bug_fix=false): Agent/TCP's
    # bugFix_ (tcp-reno.cc dupack_action: no fast retransmit below recover_ when true).
    if {[info exists bug_fix]} { $tcp($i) set bugFix_ $bug_fix }
    $tcp($i) set fid_ $i
    $ns attach-agent $sender $tcp($i)
    $ns attach-agent $m($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-source FTP]
}

# The exits of the forwarding links: fwdexit(b) classifies the packets arriving at bs(b)
# over the forwarding link. Packets for other nodes go on to bs(b)'s own entry.
foreach b {0 1} {
    set a [expr {1 - $b}]
    set fwdlink($a) [$ns link $bs($a) $bs($b)]
    set fwdexit($b) [new Classifier/Addr]
    for {set n 0} {$n < [Node set nn_]} {incr n} {
        $fwdexit($b) install $n [$bs($b) entry]
    }
    [$fwdlink($a) set ttl_] target $fwdexit($b)
}

# End markers (rearrange): one sender per old base station at the FCP, whose packets enter
# the fcp -> bs(a) link directly; one receiver per base station.
Agent/Message instproc handle {msg} { eval release $msg }
foreach a {0 1} {
    set b [expr {1 - $a}]
    set marker($a) [new Agent/Message]
    $marker($a) set packetSize_ 40
    set markrx($b) [new Agent/Message]
    $ns attach-agent $fcp $marker($a)
    $ns attach-agent $bs($b) $markrx($b)
    $ns connect $marker($a) $markrx($b)
    $marker($a) target [[$ns link $fcp $bs($a)] head]
    set plug($b) [new Agent/Message]
    $plug($b) set packetSize_ 40
    $ns attach-agent $bs($b) $plug($b)
}
set markers_sent 0
set markers_seen 0
# Per-event counts (drop_forward.py --set trace_events=1): a queue monitor on each BS->mobile
# link counts the drops of its wireless queue; a handover prints the flow's TCP counters, a
# release what it moves and what the wireless queue drops meanwhile. Monitors and the
# counting drop target of the held queue only count: the packets go where they went.
set trace_events [expr {[info exists trace_events] ? $trace_events : 0}]
if {$trace_events} {
    for {set i 0} {$i < $mobiles} {incr i} {
        foreach b {0 1} { set qm($b,$i) [$ns monitor-queue $bs($b) $m($i) ""] }
    }
}

proc wireless_head {b i} {
    global ns bs m
    return [[$ns link $bs($b) $m($i)] head]
}

# Mobile i is attached to bs(b): routes of the FCP, the mobile and both base stations.
proc attach {i b} {
    global ns fcp sender bs m null scheme fwdlink fwdexit
    set a [expr {1 - $b}]
    set mid [$m($i) id]
    $fcp add-route $mid [[$ns link $fcp $bs($b)] head]
    $m($i) add-route [$sender id] [[$ns link $m($i) $bs($b)] head]
    $bs($b) add-route $mid [wireless_head $b $i]
    $fwdexit($b) install $mid [wireless_head $b $i]
    if {$scheme == "drop"} {
        $bs($a) add-route $mid $null
        $fwdexit($a) install $mid $null
    } else {
        $bs($a) add-route $mid [$fwdlink($a) head]
        $fwdexit($a) install $mid [$fwdlink($a) head]
    }
}

# Moves every packet of queue q, oldest first, to `to` (the queue's drop target meanwhile).
proc flush {q to} {
    set keep [$q drop-target]
    $q drop-target $to
    $q reset
    $q drop-target $keep
}

proc handover {i} {
    global ns bs m at hid holding held scheme fwdlink interval null marker plug markers_sent fwdexit
    set a $at($i)
    set b [expr {1 - $a}]
    attach $i $b
    set q [[$ns link $bs($a) $m($i)] queue]
    if {$scheme == "drop"} {
        flush $q [$q drop-target]
    } else {
        flush $q [$fwdlink($a) head]
        if {$holding($i)} {
            # Held direct packets of the last handover: behind the queued ones, to the scheme.
            flush $held($i) [$fwdlink($a) head]
            set holding($i) 0
        }
    }
    set at($i) $b
    incr hid($i)
    if {$::trace_events} {
        set t $::tcp($i)
        puts "HO [$ns now] $i [$t set nrexmit_] [$t set nrexmitpack_] [$t set ncwndcuts1_] [$::qm($b,$i) set pdrops_]"
        set ::ho_drops($i) [$::qm($b,$i) set pdrops_]
    }
    if {$scheme == "rearrange"} {
        # A queue nobody resumes: its first packet (a plug) goes to the null agent, and it
        # stays blocked, holding every later packet until `flush` moves them out.
        set h [new Queue/DropTail]
        $h set limit_ [expr {$::bs_buffer + 1}]
        $h target $null
        $h drop-target $null
        if {$::trace_events} { set ::hlm($i) [new Agent/LossMonitor]; $h drop-target $::hlm($i) }
        $plug($b) target $h
        $plug($b) send plug
        set held($i) $h
        set holding($i) 1
        $bs($b) add-route [$m($i) id] $h
        if {[info exists ::held_first] && $::held_first} {
            # A candidate (drop_forward.py --set held_first=1): the held packets crowd out
            # the forwarded ones, as in a buffer shared by both (hosim's rearrange_buffer =
            # "shared"), approximated in plain Tcl: every packet forwarded while the new
            # base station holds is dropped, where hosim drops it only once held + queued
            # fill the buffer (there, 96 % of them at Δ = 100 RTTs, 100 Mb/s).
            $fwdexit($b) install [$m($i) id] $null
        }
        $marker($a) send "$i $hid($i)"
        incr markers_sent
    }
    $ns at [expr {[$ns now] + $interval}] "handover $i"
}

# An end marker reached the new base station: release the held packets if it is the
# marker of the mobile's last handover.
proc release {i h} {
    global ns bs m at hid holding held markers_seen fwdexit
    incr markers_seen
    if {$h != $hid($i) || !$holding($i)} { return }
    set b $at($i)
    if {$::trace_events} {
        set d0 [$::qm($b,$i) set pdrops_]
        set a0 [$::qm($b,$i) set parrivals_]
        set nwq [$::qm($b,$i) set pkts_]
    }
    flush $held($i) [wireless_head $b $i]
    if {$::trace_events} {
        # REL time mobile held wireless-queue-before drops-while-holding held-overflow drops-at-release
        set nheld [expr {[$::qm($b,$i) set parrivals_] - $a0}]
        puts "REL [$ns now] $i $nheld $nwq [expr {$d0 - $::ho_drops($i)}] [$::hlm($i) set npkts_] [expr {[$::qm($b,$i) set pdrops_] - $d0}]"
    }
    set holding($i) 0
    $bs($b) add-route [$m($i) id] [wireless_head $b $i]
    $fwdexit($b) install [$m($i) id] [wireless_head $b $i]
}

proc warmup {} {
    global sink mobiles warm
    for {set i 0} {$i < $mobiles} {incr i} { set warm($i) [$sink($i) set bytes_] }
}

# Round-trip time and RTO of every flow, sampled every 100 ms after the warm-up (ns-2 keeps
# srtt_ in ticks << 3 and rttvar_ in ticks << 2; RTO = max(minrto_, (srtt + 4 rttvar)),
# as TcpAgent::rtt_timeout without backoff).
set rtt_sum 0.0
set rto_sum 0.0
set rtt_n 0
proc sample {} {
    global ns tcp mobiles rtt_sum rto_sum rtt_n
    for {set i 0} {$i < $mobiles} {incr i} {
        set tick [$tcp($i) set tcpTick_]
        set srtt [expr {[$tcp($i) set srtt_] / 8.0 * $tick}]
        if {$srtt <= 0} { continue }
        set rto [expr {$srtt + [$tcp($i) set rttvar_] * $tick}]
        set minrto [$tcp($i) set minrto_]
        if {$rto < $minrto} { set rto $minrto }
        set rtt_sum [expr {$rtt_sum + $srtt}]
        set rto_sum [expr {$rto_sum + $rto}]
        incr rtt_n
    }
    $ns at [expr {[$ns now] + 0.1}] "sample"
}

# With trace_events: every flow's cwnd_, ssthresh_, timeouts, window cuts, packets sent,
# highest ACK (`ack_`), RTO backoff (`backoff_`) and highest packet sent (`maxseq_`) every
# trace_period seconds (1 s unless set), from time 0.
proc sample_tcp {} {
    global ns tcp mobiles
    for {set i 0} {$i < $mobiles} {incr i} {
        set t $tcp($i)
        puts "CW [$ns now] $i [$t set cwnd_] [$t set ssthresh_] [$t set nrexmit_] [$t set ncwndcuts1_] [$t set ndatapack_] [$t set ack_] [$t set backoff_] [$t set maxseq_]"
    }
    $ns at [expr {[$ns now] + $::trace_period}] "sample_tcp"
}
if {$trace_events} {
    if {![info exists trace_period]} { set trace_period 1.0 }
    $ns at 0.0 "sample_tcp"
}

# Packet trace of one mobile (--set trace_flow=I --set trace_from=T): ns-2's queue trace
# (`trace-queue`: + - r d lines, packet numbers in the seqno column) of the mobile's four
# wireless links from time T on, on stdout among the other lines; with --set
# trace_backbone=1 also of the sender -> FCP -> base station links (every flow).
if {[info exists trace_flow]} {
    proc trace_mobile {i} {
        global ns bs m sender fcp
        foreach b {0 1} {
            $ns trace-queue $bs($b) $m($i) stdout
            $ns trace-queue $m($i) $bs($b) stdout
        }
        if {[info exists ::trace_backbone] && $::trace_backbone} {
            $ns trace-queue $sender $fcp stdout
            foreach b {0 1} { $ns trace-queue $fcp $bs($b) stdout }
        }
    }
    $ns at [expr {[info exists trace_from] ? $trace_from : 0.0}] "trace_mobile $trace_flow"
}

proc finish {} {
    global ns sink tcp mobiles warm duration warmup_s rtt_sum rto_sum rtt_n markers_sent markers_seen
    for {set i 0} {$i < $mobiles} {incr i} {
        set t $tcp($i)
        puts "FLOW $i $warm($i) [$sink($i) set bytes_] [$t set ndatapack_] [$t set nrexmitpack_] [$t set nrexmit_] [$t set ncwndcuts1_]"
    }
    if {$rtt_n > 0} { puts "RTT [expr {$rtt_sum / $rtt_n}] [expr {$rto_sum / $rtt_n}]" }
    puts "MARKERS $markers_sent $markers_seen"
    exit 0
}

for {set i 0} {$i < $mobiles} {incr i} { $ns at 0.0 "attach $i 0" }
# A candidate (drop_forward.py --set start_stagger=S): flow i starts at i x S s, as hosim's
# `fcp.start_stagger_s` (drop_forward_phase.py --stagger).
set start_stagger [expr {[info exists start_stagger] ? $start_stagger : 0.0}]
for {set i 0} {$i < $mobiles} {incr i} { $ns at [expr {$i * $start_stagger}] "$ftp($i) start" }
$ns at $warmup_s "warmup"
$ns at $warmup_s "sample"
if {$handovers} {
    for {set i 0} {$i < $mobiles} {incr i} {
        set first [expr {$warmup_s + [$rng uniform 0 $interval]}]
        # Controlled runs (--set first_handover=T0,T1,...): every mobile's first handover
        # time given, e.g. those of a hosim run, instead of the seed's.
        if {[info exists first_handover]} { set first [lindex [split $first_handover ,] $i] }
        $ns at $first "handover $i"
    }
}
$ns at $duration "finish"
$ns run
