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
# ("call_wait_ms sleep_ms": the extra wait columns summary.csv has).
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/decomposition.png"
if (!exists("svg")) svg = dir."/decomposition.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("rec_workers")) rec_workers = ""
if (!exists("waits")) waits = ""
if (!exists("title")) title = "tssim"
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
if (nrows > 12) { set xtics rotate by 60 right }
barlab(dummy) = (onew ? sprintf("%d", column("n")) : sprintf("%d/%d", column("n"), column("workers"))) \
                . (onecls ? "" : "/".strcol("class"))

wait_colours = "#9467bd #8c564b #e377c2 #17becf #7f7f7f"
wait_title(c) = c eq "call_wait_ms" ? "call wait (server queue, legs)" : \
                c eq "chan_wait_ms" ? "channel wait" : c eq "hop_ms" ? "hops" : c eq "sleep_ms" ? "sleep" : \
                c eq "actor_mutex_wait_ms" ? "mutex wait" : c

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000, 640 font "sans,11" noenhanced
} else {
  set terminal png size 1000, 640 noenhanced
}
set output png
plot file using "cpu_ms":xtic(barlab(0)) lc rgb "#1f77b4" title "own CPU", \
     '' using "queue_wait_ms" lc rgb "#ff7f0e" title "queue wait", \
     '' using "ready_wait_ms" lc rgb "#bcbd22" title "callback wait", \
     '' using "io_ms" lc rgb "#2ca02c" title "I/O", \
     '' using "lock_wait_ms" lc rgb "#d62728" title "lock wait", \
     for [i = 1:words(waits)] '' using (column(word(waits, i))) lc rgb word(wait_colours, i) \
       title wait_title(word(waits, i)), \
     '' using 0:"wave_ms" with points pt 9 ps 2 lc rgb "black" title "wave (median)"
set terminal svg size 1000, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
