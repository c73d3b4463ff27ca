# The time-slice queue vs N: queue_depth (actors already waiting when an
# actor enters a worker's time-slice queue, mean; the most as points) on the
# left axis and slice_wait_ms (entering the queue to being resumed, mean) on
# the right, per worker count. Round robin with m actors per worker: the
# depth approaches m - 1 and the wait (m - 1) slices.
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/zero-cache-wave'" plots/queue.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes and rec_workers (unused: the queue metrics are per worker,
# the same on every class row).
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/queue.png"
if (!exists("svg")) svg = dir."/queue.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("title")) title = "tssim"
file = dir."/summary.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

first = word(classes, 1)
sel(w) = column("workers") == w && (words(classes) <= 1 || strcol("class") eq first)
W(i) = word(workers, i) + 0
stats file using "n" nooutput
nmin = STATS_min
nmax = STATS_max
wide = nmax / nmin >= 50
if (wide) { set logscale x; set xrange [nmin * 0.8 : nmax * 1.25] } else { set xrange [0 : nmax * 1.05] }
set yrange [0 : *]
set y2range [0 : *]
set ytics nomirror
set y2tics
set title title.": the time-slice queue vs N"
set xlabel "N (groups)"
set ylabel "actors waiting when one enters the queue"
set y2label "slice wait: entering the queue to resumed (ms)"
set key outside right top box
set grid

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000, 640 font "sans,11" noenhanced
} else {
  set terminal png size 1000, 640 noenhanced
}
set output png
plot for [i = 1:words(workers)] \
       file using "n":(sel(W(i)) ? column("queue_depth") : NaN) \
       with linespoints lw 2 pt 7 lc i title sprintf("queue depth W=%d", W(i)), \
     for [i = 1:words(workers)] \
       file using "n":(sel(W(i)) ? column("queue_depth_max") : NaN) \
       with points pt 6 ps 1.2 lc i title sprintf("most waiting W=%d", W(i)), \
     for [i = 1:words(workers)] \
       file using "n":(sel(W(i)) ? column("slice_wait_ms") : NaN) axes x1y2 \
       with linespoints dt 2 lw 1.5 pt 5 lc i title sprintf("slice wait W=%d", W(i))
set terminal svg size 1000, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
