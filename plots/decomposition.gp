# Per-group time decomposition: one stacked bar per row of summary.csv (N,
# workers, class): the MEANS over the row's groups (actors) of own CPU, queue
# wait, I/O-callback wait, I/O and lock wait, then the rest of their life (the
# waits of the features the model uses: call wait, a server's queue and the
# call's legs; channel wait, hops, sleep, mutex wait), with the mean wave as a
# marker. Means add: the parts of each group sum to its life, arrival to the
# end of its program (done_ms - arrive_ms), so the stacked means sum to the
# mean life, the bar's height. The wave counts from wave_start to wave_end, a
# part of that life: a model that marks its wave inside the life (zero-cache:
# the connect before it, the settle after) has its bar above the marker by the
# mean time outside the wave. The means are taken here from samples.csv (one
# row per actor; summary.csv holds medians, which do not add up), over the
# groups that finished; a row none of whose groups finished stacks the means
# of every group's parts until the run ended (the title says so). The rest is
# the mean life less the five parts (samples.csv has no column per extra wait).
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/rr-wave'" plots/decomposition.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes ("job": class names), rec_workers (worker counts that have
# recorded values of this plot's metric; needs recorded_* columns), waits
# ("call_wait_ms sleep_ms": the extra wait columns summary.csv has, which name
# the rest), axes ("policy load": the scenario's axis keys, summary.csv's and
# samples.csv's columns before n), nseries and series_1 .. series_<nseries>
# (the axis combinations, each "key=label ...": one group of bars per
# combination, named above it; without axes one, ""), series_rows ("0 3 4 7":
# each combination's first and last data row, in pairs; "" when some
# combination's rows are not consecutive, then each bar's label names its
# combination).
# What it stacks, for summary.csv's data row g (from 1): PART(g, q), q = 1..5
# (own CPU, queue, callback, I/O, lock wait), REST(g), LIFE(g) (their sum) and
# WAVE(g) (the marker), all in ms; FIN(g) the groups averaged.
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/decomposition.png"
if (!exists("svg")) svg = dir."/decomposition.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("rec_workers")) rec_workers = ""
if (!exists("waits")) waits = ""
if (!exists("title")) title = "tssim"
if (!exists("axes")) axes = ""
if (!exists("nseries")) nseries = 1
if (!exists("series_1")) series_1 = ""
if (!exists("series_rows")) series_rows = ""
file = dir."/summary.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

onecls = words(classes) <= 1
nrows = 0
stats file using "n" nooutput
nrows = STATS_records
onen = STATS_min == STATS_max  # one N (named in the x label, not under each bar)
nlo = STATS_min

# The means, from samples.csv. A row's key: its axis labels (the na columns before n in
# summary.csv, the first na in samples.csv too), n, workers and class (none when summary.csv's class
# is "all": every class pooled), tab-separated; keys holds every summary row's, each between
# newlines, and IDX[the position of its newline in keys] its row number, so one strstrt finds a
# sample's row.
samples = dir."/samples.csv"
nax(i) = i > 1000 || columnhead(i) eq "n" ? i - 1 : nax(i + 1)
na = 0
stats file every ::0::0 using ((na = nax(1)), 0) nooutput
rowaxes(i) = i > na ? "" : strcol(i)."\t".rowaxes(i + 1)
rowkey(dummy) = rowaxes(1).strcol("n")."\t".strcol("workers").(allcls ? "" : "\t".strcol("class"))
keys = "\n"
allcls = 0
stats file using ((allcls = strcol("class") eq "all"), (keys = keys.rowkey(0)."\n"), 0) nooutput
array IDX[strlen(keys)]
pos = 1
do for [g = 1:nrows] { IDX[pos] = g; pos = strstrt(keys[pos + 1:], "\n") + pos }
G(dummy) = nrows == 1 && allcls ? 1 : ((p = strstrt(keys, "\n".rowkey(0)."\n")), p > 0 ? IDX[p] : 0)
# per row g: SA, the five parts' sums over its groups (SA[(g - 1) * NQ + q]), and CA, their count;
# SU and CU the same over its groups that did not finish (done_ms empty: the horizon stopped them; the
# finished groups' parts are SA - SU), LF the finished groups' life, WF their wave (over CW with a
# wave). Written out, not a loop over the part names: so the pass adds about 5 us a sample to
# gnuplot's 2 us of reading it (mm1's 100,000 samples: 0.55 s).
NQ = 5
array SA[nrows * NQ]
array SU[nrows * NQ]
array LF[nrows]
array WF[nrows]
array CA[nrows]
array CU[nrows]
array CW[nrows]
do for [i = 1:nrows * NQ] { SA[i] = 0; SU[i] = 0 }
do for [g = 1:nrows] { LF[g] = 0; WF[g] = 0; CA[g] = 0; CU[g] = 0; CW[g] = 0 }
unf(g, k) = ((CU[g] = CU[g] + 1), (SU[k + 1] = SU[k + 1] + column("cpu_ms")), \
             (SU[k + 2] = SU[k + 2] + column("queue_wait_ms")), (SU[k + 3] = SU[k + 3] + column("ready_wait_ms")), \
             (SU[k + 4] = SU[k + 4] + column("io_ms")), (SU[k + 5] = SU[k + 5] + column("lock_wait_ms")))
add(g, k, d, w) = g < 1 ? 0 : ((CA[g] = CA[g] + 1), (SA[k + 1] = SA[k + 1] + column("cpu_ms")), \
             (SA[k + 2] = SA[k + 2] + column("queue_wait_ms")), (SA[k + 3] = SA[k + 3] + column("ready_wait_ms")), \
             (SA[k + 4] = SA[k + 4] + column("io_ms")), (SA[k + 5] = SA[k + 5] + column("lock_wait_ms")), \
             d == d ? ((LF[g] = LF[g] + d - column("arrive_ms")), \
                       w == w ? ((WF[g] = WF[g] + w), (CW[g] = CW[g] + 1)) : 0) : unf(g, k))
stats samples using ((g = G(0)), add(g, (g - 1) * NQ, column("done_ms"), column("wave_ms")), 0) nooutput
CF(g) = CA[g] - CU[g]
FIN(g) = CF(g)
PART(g, q) = g < 1 ? NaN : none ? 0 : CF(g) > 0 ? (SA[(g - 1) * NQ + q] - SU[(g - 1) * NQ + q]) / CF(g) : \
             CA[g] > 0 ? SA[(g - 1) * NQ + q] / CA[g] : NaN
LIFE(g) = g < 1 || CF(g) == 0 ? NaN : LF[g] / CF(g)
sum5(g) = PART(g, 1) + PART(g, 2) + PART(g, 3) + PART(g, 4) + PART(g, 5)
REST(g) = g < 1 || CF(g) == 0 ? 0 : LIFE(g) - sum5(g) > 0 ? LIFE(g) - sum5(g) : 0  # (not below 0: rounding)
WAVE(g) = g < 1 || CW[g] == 0 ? NaN : WF[g] / CW[g]
# none: no row has a group in samples.csv (gone, or a results folder without it): every part 0 (an
# undefined bar everywhere would leave gnuplot no x range); unfin: a row without finished groups;
# the largest rest against the tallest bar (a rest of rounding only is not drawn, nor named in the key)
none = 1
hasw = 0
do for [g = 1:nrows] { none = none && CA[g] == 0; hasw = hasw || CW[g] > 0 }
unfin = 0
restmax = 0
barmax = 0
do for [g = 1:nrows] {
  unfin = unfin || (CF(g) == 0 && CA[g] > 0)
  restmax = REST(g) > restmax ? REST(g) : restmax
  barmax = sum5(g) + REST(g) > barmax ? sum5(g) + REST(g) : barmax
}
hasrest = restmax > 1e-4 * barmax
# the parts some row has (the others are not drawn, nor named in the key; own CPU always is)
array HAS[NQ]
do for [q = 1:NQ] { HAS[q] = q == 1; do for [g = 1:nrows] { HAS[q] = HAS[q] || PART(g, q) > 0 } }

set title title.": where a group's time goes (mean over the groups that finished)\n" . \
          "the bar: arrival to end" . (hasw ? "; the marker: the wave, wave_start to wave_end" : "") . \
          (none ? "\nnothing to stack: samples.csv holds no group of these rows (a run with --samples none writes none)" : \
           unfin ? "\nrows none of whose groups finished: the mean of every group's until the run ended" : "")
set ylabel "time per group (ms), mean"
onew = words(workers) <= 1
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border rgb "gray30"
set boxwidth 0.7
set yrange [0 : *]
set key outside right top box
set grid ytics
# a row's axis combination, named as series_<s> names it: "key=label ..."
rowser(i) = i > words(axes) ? "" : word(axes, i)."=".strcol(word(axes, i)).(i < words(axes) ? " " : "").rowser(i + 1)
SER(s) = value(sprintf("series_%d", s))
# bars in groups, one per combination, when each combination's rows are consecutive and some
# combination has several (else each bar's label names its combination)
grouped = nseries > 1 && nseries <= 12 && nrows > nseries && words(series_rows) == 2 * nseries
F(s) = word(series_rows, 2 * s - 1) + 0
L(s) = word(series_rows, 2 * s) + 0
AT(s) = F(s) + s - 1   # each group's first bar: its rows, one empty slot after each earlier group
MID(s) = AT(s) + (L(s) - F(s)) / 2.0
named = nseries > 1 && !grouped   # each bar's label names its combination
# A bar's label holds what varies from bar to bar: its combination (unless grouped), N, workers and
# class; one N and one worker count are said in the x label instead, as is the axis key when there is
# one (the combination is then its label alone: "fifo", not "policy=fifo", also over a group). A
# chart of one bar names its N.
onex = words(axes) == 1
comb(dummy) = onex ? strcol(axes) : rowser(1)
GN(s) = onex ? SER(s)[strlen(axes) + 2:] : SER(s)
nwc(dummy) = (onen ? "" : sprintf("%d", column("n"))) . (onew ? "" : (onen ? "" : "/").sprintf("%d", column("workers"))) . \
             (onecls ? "" : (onen && onew ? "" : "/").strcol("class"))
join(a, b, sep) = a . (a ne "" && b ne "" ? sep : "") . b
barlab(dummy) = (bl = join(named ? comb(0) : "", nwc(0), " "), bl ne "" ? bl : sprintf("%d", column("n")))
maxbar = 0
stats file using ((bl = barlab(0)), (maxbar = strlen(bl) > maxbar ? strlen(bl) : maxbar), 0) nooutput
what = join(join(join(named && onex ? axes : "", onen ? "" : "N (groups)", " / "), onew ? "" : "workers", " / "), \
            onecls ? "" : "class", " / ")
what = join(what, grouped && onex ? "groups: ".axes : "", ", ")
set xlabel join(what, join(onen ? sprintf("N = %d", nlo) : "", onew ? "workers = ".workers : "", ", "), "; ")
if (grouped) {  # each group's name above it
  set tmargin 5
  set title offset 0, 1.2
  do for [s = 1:nseries] { set label s GN(s) at MID(s), graph 1 offset 0, 0.8 center }
}

wait_title(c) = c eq "call_wait_ms" ? "call wait (server queue, legs)" : \
                c eq "chan_wait_ms" ? "channel wait" : c eq "hop_ms" ? "hops" : c eq "sleep_ms" ? "sleep" : \
                c eq "actor_mutex_wait_ms" ? "mutex wait" : c
# several waits: the rest's key entry is "the rest:", each wait an entry of its own under it (one line
# naming them all made the key as wide as the plot)
rest_title = words(waits) == 1 ? wait_title(waits) : words(waits) > 1 ? "the rest:" : "the rest of the life"
rest_parts = ""
do for [i = 1:(words(waits) > 1 ? words(waits) : 0)] {
  rest_parts = rest_parts.sprintf("keyentry with lines lt nodraw title '%s', ", wait_title(word(waits, i)))
}

# the canvas: wider for many bars (a slot of 18 pixels at least, the height of a turned label), taller
# for long turned labels (below)
nslots = nrows + (grouped ? nseries - 1 : 0) + 2
cw = 450 + 18 * nslots > 1000 ? 450 + 18 * nslots : 1000
ch = 640
TERM = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo size %d, %d font 'sans,11' noenhanced" : \
       "png size %d, %d noenhanced"  # (pngcairo when available, else libgd's png)

# draw: PNG, then SVG
eval sprintf("set terminal ".TERM, cw, ch)
set output png
# one bar per row: own CPU, queue wait, callback wait, I/O, lock wait, the rest, the wave as a marker
# (the rest only when some row has one, the marker only when some row has a wave: else an empty
# clause would be named in the key; each clause ends in ", ", cut off the last)
array PN[NQ] = ["own CPU", "queue wait", "callback wait", "I/O", "lock wait"]
array PC[NQ] = ["#1f77b4", "#ff7f0e", "#bcbd22", "#2ca02c", "#d62728"]
bar(q, sel, first) = !HAS[q] ? "" : sprintf("'' %s using (PART(G(0), %d)) lc rgb '%s' %s, ", sel, q, PC[q], \
                     first ? "title '".PN[q]."'" : "notitle")
bars(sel, at, x, first) = sprintf("%s file %s using (PART(G(0), 1)):xtic(barlab(0)) lc rgb '%s' %s, ", at, sel, \
          PC[1], first ? "title '".PN[1]."'" : "notitle") . \
  bar(2, sel, first) . bar(3, sel, first) . bar(4, sel, first) . bar(5, sel, first) . \
  (!hasrest ? "" : sprintf("'' %s using (REST(G(0))) lc rgb '#9467bd' %s, ", sel, first ? "title rest_title" : "notitle") . \
                 (first ? rest_parts : "")) . \
  (!hasw ? "" : sprintf("'' %s using ($0 + %d):(WAVE(G(0))) with points pt 9 ps 2 lc rgb 'black' %s, ", sel, x, \
          first ? "title 'wave (mean)'" : "notitle"))
cmd = ""
if (grouped) {
  do for [s = 1:nseries] {
    cmd = cmd . \
          bars(sprintf("every ::%d::%d", F(s), L(s)), sprintf("newhistogram at %d,", AT(s)), AT(s), s == 1)
  }
} else {
  cmd = bars("", "", 0, 1)
}
if (none) { unset key }  # (no part to name)
eval "plot ".cmd[1:strlen(cmd) - 2]
# that drawing's x axis, in characters a slot (gnuplot's estimate of a character's width): bar labels
# wider than their slot are turned (the canvas taller for long ones), group names that would reach
# their neighbour's alternate between two heights, and the chart is drawn again
cps = (GPVAL_TERM_XMAX - GPVAL_TERM_XMIN) * (exists("GPVAL_TERM_SCALE") ? GPVAL_TERM_SCALE : 1) / \
      GPVAL_TERM_HCHAR / (GPVAL_X_MAX - GPVAL_X_MIN)
turn = maxbar > 0.9 * cps
stag = 0
do for [s = 1:(grouped ? nseries - 1 : 0)] { stag = stag || (strlen(GN(s)) + strlen(GN(s + 1))) / 2.0 + 1 > (MID(s + 1) - MID(s)) * cps }
if (turn || stag) {
  if (turn) { set xtics rotate by (maxbar > 12 ? 90 : 60) right; ch = 640 + (maxbar > 12 ? 8 * (maxbar - 12) : 0) }
  if (stag) {
    set tmargin 6
    set title offset 0, 2.2
    do for [s = 2:nseries:2] { set label s GN(s) at MID(s), graph 1 offset 0, 1.9 center }
  }
  eval sprintf("set terminal ".TERM, cw, ch)
  set output png
  replot
}
set terminal svg size cw, ch dynamic font "sans,11" noenhanced
set output svg
replot
set output
