# Per-group CPU vs N: the slice-timer CPU (per_group_cpu_ms: time-sliced
# steps, stopped while queued) and all CPU an actor ran (cpu_ms), per worker
# count and class, with the recorded per-group CPU when there is a baseline.
# Flat lines are the point: CPU per group does not grow with N.
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/rr-wave'" plots/cpu.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes ("job": class names), rec_workers (worker counts that have
# recorded values of this plot's metric; needs recorded_* columns).
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/cpu.png"
if (!exists("svg")) svg = dir."/cpu.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("rec_workers")) rec_workers = ""
if (!exists("title")) title = "tssim"
file = dir."/summary.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

onecls = words(classes) <= 1
ncls = onecls ? 1 : words(classes)
sel(w, c) = column("workers") == w && (onecls || strcol("class") eq c)
lab(w, c) = sprintf("W=%d%s", w, onecls || c eq "" ? "" : " ".c)
W(i) = word(workers, i) + 0
C(j) = word(classes, j)
RW(i) = i <= words(rec_workers) ? word(rec_workers, i) + 0 : 0
stats file using "n" nooutput
nmin = STATS_min
nmax = STATS_max
wide = nmax / nmin >= 50
if (wide) { set logscale x; set xrange [nmin * 0.8 : nmax * 1.25] } else { set xrange [0 : nmax * 1.05] }
set yrange [0 : *]
set offsets 0, 0, graph 0.1, 0
set title title.": CPU per group vs N (median over groups)"
set xlabel "N (groups)"
set ylabel "CPU per group (ms)"
set key outside right top box
set grid

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000, 640 font "sans,11" noenhanced
} else {
  set terminal png size 1000, 640 noenhanced
}
set output png
plot for [i = 1:words(workers)] for [j = 1:ncls] \
       file using "n":(sel(W(i), C(j)) ? column("per_group_cpu_ms") : NaN) \
       with linespoints lw 2 pt (5 + 2 * j) ps 1.2 lc ((i - 1) * ncls + j) title "slice-timer CPU ".lab(W(i), C(j)), \
     for [i = 1:words(workers)] for [j = 1:ncls] \
       file using "n":(sel(W(i), C(j)) ? column("cpu_ms") : NaN) \
       with linespoints dt 2 lw 1.5 pt (4 + 2 * j) lc ((i - 1) * ncls + j) title "all CPU ".lab(W(i), C(j)), \
     for [i = 1:words(rec_workers)] \
       file using "n":(column("workers") == RW(i) ? column("recorded_per_group_cpu_ms") : NaN) \
       with linespoints dt 3 pt 6 ps 2 lw 2 lc rgb "black" title "recorded ".lab(RW(i), "")
set terminal svg size 1000, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
