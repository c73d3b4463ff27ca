# Per-group time decomposition: one stacked bar per row of summary.csv (N,
# workers, class): own CPU, queue wait, I/O-callback wait, I/O and lock wait
# (medians over groups), then the waits of the features the model uses (call
# wait: a server's queue and the call's legs; channel wait, hops, sleep, mutex
# wait), with the median wave as a marker. Medians of parts
# need not add up to the median whole, and the parts count a group's whole
# run while the wave counts from wave_start to wave_end.
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/rr-wave'" plots/decomposition.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes ("job": class names), rec_workers (worker counts that have
# recorded values of this plot's metric; needs recorded_* columns), waits
# ("call_wait_ms sleep_ms": the extra wait columns summary.csv has), axes
# ("policy load": the scenario's axis keys, summary.csv's columns before n),
# nseries and series_1 .. series_<nseries> (the axis combinations, each
# "key=label ...": one group of bars per combination, named above it; without
# axes one, ""), series_rows ("0 3 4 7": each combination's first and last
# data row, in pairs; "" when some combination's rows are not consecutive,
# then each bar's label names its combination).
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
set title title.": where a group's time goes (median over groups)"
set ylabel "time per group (ms)"
onew = words(workers) <= 1
set xlabel (onew ? "N (groups), workers = ".workers : "N / workers").(onecls ? "" : " / class")
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
barlab(dummy) = (nseries > 1 && !grouped ? rowser(1)." " : "") \
                . (onew ? sprintf("%d", column("n")) : sprintf("%d/%d", column("n"), column("workers"))) \
                . (onecls ? "" : "/".strcol("class"))
named = nseries > 1 && !grouped   # each bar's label names its combination
if (nrows > 12 || (named && nrows > 4)) { set xtics rotate by (named ? 90 : 60) right }
if (grouped) {  # each group's name above it
  set tmargin 5
  set title offset 0, 1.2
  do for [s = 1:nseries] {
    set label SER(s) at (AT(s) + (L(s) - F(s)) / 2.0), graph 1 offset 0, 0.8 center
  }
}

wait_colours = "#9467bd #8c564b #e377c2 #17becf #7f7f7f"
wait_title(c) = c eq "call_wait_ms" ? "call wait (server queue, legs)" : \
                c eq "chan_wait_ms" ? "channel wait" : c eq "hop_ms" ? "hops" : c eq "sleep_ms" ? "sleep" : \
                c eq "actor_mutex_wait_ms" ? "mutex wait" : c

# bars named by long combinations (rotated): a taller canvas
maxlab = 0
do for [s = 1:nseries] { maxlab = strlen(SER(s)) > maxlab ? strlen(SER(s)) : maxlab }
ch = named && maxlab > 20 ? 640 + 5 * (maxlab - 20) : 640

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000, ch font "sans,11" noenhanced
} else {
  set terminal png size 1000, ch noenhanced
}
set output png
# one bar per row: own CPU, queue wait, callback wait, I/O, lock wait, the extra waits, the wave as a marker
# (the extra waits' loop only when there are some: gnuplot reads the data of an empty loop's clause
# all the same, and warns that it has no valid points)
bars(sel, at, x, first) = sprintf("%s file %s using 'cpu_ms':xtic(barlab(0)) lc rgb '#1f77b4' %s, ", at, sel, first ? "title 'own CPU'" : "notitle") . \
  sprintf("'' %s using 'queue_wait_ms' lc rgb '#ff7f0e' %s, ", sel, first ? "title 'queue wait'" : "notitle") . \
  sprintf("'' %s using 'ready_wait_ms' lc rgb '#bcbd22' %s, ", sel, first ? "title 'callback wait'" : "notitle") . \
  sprintf("'' %s using 'io_ms' lc rgb '#2ca02c' %s, ", sel, first ? "title 'I/O'" : "notitle") . \
  sprintf("'' %s using 'lock_wait_ms' lc rgb '#d62728' %s, ", sel, first ? "title 'lock wait'" : "notitle") . \
  (waits eq "" ? "" : sprintf("for [i = 1:words(waits)] '' %s using (column(word(waits, i))) lc rgb word(wait_colours, i) %s, ", sel, \
          first ? "title wait_title(word(waits, i))" : "notitle")) . \
  sprintf("'' %s using ($0 + %d):'wave_ms' with points pt 9 ps 2 lc rgb 'black' %s", sel, x, \
          first ? "title 'wave (median)'" : "notitle")
cmd = ""
if (grouped) {
  do for [s = 1:nseries] {
    cmd = cmd . (s > 1 ? ", " : "") . \
          bars(sprintf("every ::%d::%d", F(s), L(s)), sprintf("newhistogram at %d,", AT(s)), AT(s), s == 1)
  }
} else {
  cmd = bars("", "", 0, 1)
}
eval "plot ".cmd
set terminal svg size 1000, ch dynamic font "sans,11" noenhanced
set output svg
replot
set output
