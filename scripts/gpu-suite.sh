#!/usr/bin/env bash
# Runs Primer's GPU suite on a GPU machine, from the repository root, using the bundle that
# scripts/gpu-bundle.sh made in .gpu/. Stages (default: all, in this order):
#   tests     the JUnit suite with the GPU present (every launch checked); PRIMER_TEST_TAGS splits it
#             over two calls: "--exclude-tag large", then "--include-tag large"
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck over `primer selftest` (every kernel
#             Primer ships, the ladders at every block size, user-defined operators through NVRTC),
#             over the scan tests with many tiles, and over the custom-operator tests;
#             PRIMER_SANITIZE_TOOLS picks the tools (racecheck over the tests needs a call of its own)
#   bench     bench/baselines.py (CuPy, PyTorch) then `primer bench` beside them
#   showcase  `primer info`, `primer demo` and the ladders' lecture tables (text, and an SVG chart)
#   pairs     the reduce targets' reliability: PRIMER_PAIRS (default 4) rounds of CuPy/PyTorch's
#             sum_f32 and sum_f64 then `primer bench --only reduce` beside them; every round's sum rows
#             in $OUT/pairs.md; not in the default list
#   nonvrtc   the GPU as a machine without NVRTC (-Dprimer.nvrtc.library pointing nowhere): `primer
#             info`, `primer selftest`, `primer demo`, WithoutNvrtcTest and the user-defined
#             operators' tests (which must skip, saying why); not in the default list
# Logs and results go to $OUT (the device tool brings that folder back) or to /tmp/primer-out.
# The results files are named bench/results/<date>-<gpu>.{json,md}: copy them into the repo.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
out=${OUT:-/tmp/primer-out}
mkdir -p "$out"
stages=${*:-tests sanitize bench showcase}

if [ ! -x /tmp/jdk/bin/java ]; then
  tar -C /tmp -xJf .gpu/jdk.tar.xz || { echo "no .gpu/jdk.tar.xz: run scripts/gpu-bundle.sh and carry .gpu"; exit 2; }
fi
java=/tmp/jdk/bin/java
jvm=(--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC)
primer() { "$java" "${jvm[@]}" -jar .gpu/lib/primer.jar "$@"; }
# The jlink'd runtime has no zip file system, so the JUnit launcher gets an unpacked copy of the tests.
unpack_tests() {
  rm -rf /tmp/primer-tests && python3 -m zipfile -e .gpu/lib/primer-core-tests.jar /tmp/primer-tests
  test_cp=$(ls .gpu/lib/*.jar | grep -v -e '/primer.jar$' -e '-tests.jar$' | tr '\n' ':').gpu/lib/primer.jar:/tmp/primer-tests
}
export PRIMER_GIT_COMMIT=$(tr -d '\n' < .gpu/COMMIT)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader || true
status=0

for stage in $stages; do
  case $stage in
  tests)
    echo "== tests"
    unpack_tests
    timeout "${PRIMER_TESTS_TIMEOUT:-1800}" "$java" "${jvm[@]}" -Xss4m -Xmx64g -Dprimer.checkLaunches=true \
        -jar .gpu/junit-console.jar execute --class-path "$test_cp" --scan-class-path /tmp/primer-tests ${PRIMER_TEST_TAGS:-} --disable-banner \
        --details=summary --details-theme=ascii --reports-dir "$out/junit" > "$out/tests.log" 2>&1
    rc=$?; tail -n 40 "$out/tests.log"; [ $rc -eq 0 ] || { echo "tests FAILED ($rc)"; status=1; }
    ;;
  sanitize)
    unpack_tests
    sanitizer() { timeout "${PRIMER_SANITIZE_TIMEOUT:-1800}" compute-sanitizer --tool "$1" --error-exitcode 99 \
        --target-processes all "${@:2}"; }
    # One tool's runs, summarised in $out/sanitize-<tool>.summary; the three tools run side by side
    # (independent processes on one GPU: same findings, a third of the wall time).
    sanitize_with() {
      local tool=$1 rc
      {
        echo "== compute-sanitizer $tool"
        sanitizer $tool "$java" "${jvm[@]}" -jar .gpu/lib/primer.jar selftest > "$out/sanitize-$tool.log" 2>&1
        rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|selftest:" "$out/sanitize-$tool.log" | tail -n 3
        [ $rc -eq 0 ] || { echo "$tool FAILED ($rc)"; tail -n 30 "$out/sanitize-$tool.log"; }
        # The self-test's production scans span a few tiles at most; these cover many (the look-back), int8
        # sums into int64 at every misalignment (their slices read chunks other lanes staged), the offsets
        # check over a million segments, the head slots of scans by offsets with 31 to 64 starts in a tile,
        # the same segments by flags and by offsets, and the user-defined operators at every misalignment, and
        # the segmented sums that widen into int64 (int32's ballots and shuffles of prefixes, the int8 ones'
        # slices, whose lanes read other lanes' chunks and head bits) around their tiles; its segments reach
        # 20000 elements (one long work item): three segmented tests add long segments of several items,
        # built-in (with the int64 overflow flag) and user-defined, and the 128-bit int32 sums (taken beyond
        # 2^32 elements per row, forced here at small shapes); two take the merge path of the 128-bit segment
        # sums across many tiles and with decreasing offsets, one the first decreasing pair wherever it lies
        # among the check's loads (offsets loaded in pairs and one at a time), three the offsets' verdict and
        # every recipe by each route (the one launch, the classic kernels, the merge path), built in and
        # user-defined (not the cooperative launch's refusal: the tools report the refused calls it asserts as
        # API errors), and one the host's guess of the route, queued behind the check before its verdict,
        # wrong each way (the gate the check's route shuts), and one int8 lane folds with `in` off an 8-byte
        # boundary and ending at its allocation's end; the NaN test takes float min and max scans, plain
        # and segmented: float32 plain through its fast and exact paths, the others as integer keys; the
        # running argmin/argmax tests span up to 257 tiles (the look-back across windows, the L2 prefetch
        # ahead) on both backends, plain and segmented (by flags and by offsets, inclusive and exclusive), and
        # take turns with the scan on one status area.
        # Tests tagged "large" (arrays beyond 2^31 elements, BigInputs) would take hours under the tools.
        sanitizer $tool "$java" "${jvm[@]}" -Xss4m -jar .gpu/junit-console.jar execute --class-path "$test_cp" \
            --select-method dev.primer.gpu.GpuScanTest#everyOperatorAndTypeMatchesTheReference \
            --select-method dev.primer.gpu.GpuScanTest#int32SumsIntoInt64 \
            --select-method dev.primer.gpu.GpuScanTest#int8SumsIntoInt64 \
            --select-method dev.primer.gpu.GpuScanTest#minAndMaxKeepTheBitsOfTheirNaN \
            --select-method dev.primer.gpu.GpuScanTest#decreasingOffsetsAnywhereAreRejectedBeforeAnythingIsWritten \
            --select-method dev.primer.gpu.GpuScanTest#segmentedByOffsetsWithStartsPlacedAroundTheSlotLimit \
            --select-method dev.primer.gpu.GpuScanTest#segmentsGiveTheSameBitsByFlagsAndByOffsets \
            --select-method dev.primer.gpu.GpuScanTest#segmentedSumsWidenIntoInt64 \
            --select-class dev.primer.gpu.GpuCustomReduceTest --select-class dev.primer.gpu.GpuCustomScanTest \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#longSumOverflowIsFoundInChunkedRowsAndLongSegments \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#int32SumsThrough128BitKernelsMatchReference \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#mergePathSumsMatchReferenceAcrossTiles \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#decreasingOffsetsOnTheMergePathNameTheFirstPair \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#theFirstDecreasingPairIsNamedWhereverItLies \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#offsetsOutsideInOrDecreasingAreRejected \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#theVerdictCountsTheClassicKernelsIdleLaneSteps \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#theCheckLaunchFindsTheMergePathSplits \
            --select-method 'dev.primer.gpu.GpuSegmentedReduceTest#everyRecipeByEachRoute(dev.primer.gpu.GpuSegmentedReduce$Route)' \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#aRouteGuessedWrongStillReducesEverySegment \
            --select-method dev.primer.gpu.GpuSegmentedReduceTest#int8LanesFoldSegmentsAtEveryPlaceInAWord \
            --select-method dev.primer.gpu.GpuCustomSegmentedReduceTest#aVeryLongSegmentAmongShortOnesFoldsInOrder \
            --select-method dev.primer.gpu.GpuCustomSegmentedReduceTest#segmentsMatchTheCpuByEveryRoute \
            --select-class dev.primer.ArgExtremeScanTest \
            --select-method dev.primer.gpu.GpuArgScanTest#takesTurnsWithTheScanOnOneStatusArea \
            --select-method "dev.primer.SegmentedArgExtremeScanTest#everyTypeSizeAndLayoutMatchesASequentialScan(dev.primer.BackendKind)" \
            --exclude-tag large --disable-banner --details=summary --details-theme=ascii > "$out/sanitize-tests-$tool.log" 2>&1
        local rc2=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|tests (successful|failed)" "$out/sanitize-tests-$tool.log" | tail -n 3
        [ $rc2 -eq 0 ] || { echo "$tool over the tests FAILED ($rc2)"; tail -n 30 "$out/sanitize-tests-$tool.log"; }
        [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && echo "$tool: clean"
      } > "$out/sanitize-$tool.summary" 2>&1
    }
    for tool in ${PRIMER_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do sanitize_with $tool & done
    wait
    for tool in ${PRIMER_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
      cat "$out/sanitize-$tool.summary"
      grep -q "^$tool: clean" "$out/sanitize-$tool.summary" || status=1
      mv "$out/sanitize-$tool.summary" "$out/sanitize-$tool-summary.log"
    done
    ;;
  bench)
    echo "== baselines (CuPy, PyTorch)"
    PYTHONUNBUFFERED=1 python3 bench/baselines.py --out "$out/baselines.json" --segments-out /tmp/segments.npy \
        > "$out/baselines.log" 2>&1 || { echo "baselines failed"; tail -n 20 "$out/baselines.log"; }
    echo "== primer bench"
    primer bench --baselines "$out/baselines.json" --segments /tmp/segments.npy --out-dir "$out" 2>&1 | tee "$out/bench.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    ;;
  pairs)
    # One bench run is one draw: CuPy's host time per call and the machine's speed move the ratios by a
    # few percent from run to run. Rounds of (baselines, Primer), each side by side, show the spread.
    echo "== pairs: sum_f32 and sum_f64 beside CuPy and PyTorch, ${PRIMER_PAIRS:-4} rounds"
    { echo "# sum_f32 and sum_f64, ${PRIMER_PAIRS:-4} rounds of (baselines.py, primer bench --only reduce)"; echo; } > "$out/pairs.md"
    for round in $(seq 1 "${PRIMER_PAIRS:-4}"); do
      dir="$out/pair-$round"; mkdir -p "$dir"
      python3 bench/baselines.py --only sum_f32,sum_f64 --out "$dir/baselines.json" > "$dir/baselines.log" 2>&1 \
          || { echo "round $round: baselines failed"; tail -n 5 "$dir/baselines.log"; status=1; continue; }
      primer bench --only reduce --baselines "$dir/baselines.json" --out-dir "$dir" > "$dir/bench.log" 2>&1 \
          || { echo "round $round: primer bench failed"; tail -n 5 "$dir/bench.log"; status=1; continue; }
      header=$(grep -h -m 1 "^|benchmark|" "$dir"/*-*.md)
      { echo "## round $round"; echo; echo "$header"; echo "$header" | sed 's/[^|][^|]*/---/g'
        grep -h -E "^\|sum_f(32|64)\|" "$dir"/*-*.md; echo; } >> "$out/pairs.md"
      (cd "$dir" && tar -czf "../pair-$round.tgz" . ) && rm -rf "$dir"
    done
    cat "$out/pairs.md"
    (cd "$out" && tar -czf pairs-rounds.tgz --remove-files pair-*.tgz) || true
    ;;
  showcase)
    echo "== showcase"
    primer info > "$out/info.txt" 2>&1 || status=1
    primer demo > "$out/demo.txt" 2>&1 || status=1
    primer ladder reduce --lecture g80 --plot "$out/ladder-reduce-g80.svg" > "$out/ladder-reduce-g80.txt" 2>&1 || status=1
    primer ladder reduce --lecture k40 > "$out/ladder-reduce-k40.txt" 2>&1 || status=1
    primer ladder scan --n 28 > "$out/ladder-scan.txt" 2>&1 || status=1
    cat "$out"/info.txt "$out"/demo.txt "$out"/ladder-*.txt
    ;;
  nonvrtc)
    echo "== without NVRTC"
    unpack_tests
    none=(-Dprimer.nvrtc.library=/nonexistent/libnvrtc.so.13)
    { "$java" "${jvm[@]}" "${none[@]}" -jar .gpu/lib/primer.jar info --no-measure \
        && "$java" "${jvm[@]}" "${none[@]}" -jar .gpu/lib/primer.jar selftest \
        && "$java" "${jvm[@]}" "${none[@]}" -jar .gpu/lib/primer.jar demo; } > "$out/nonvrtc-cli.log" 2>&1 \
        || { echo "the CLI without NVRTC FAILED"; status=1; }
    grep -i -E "nvrtc|user-defined|selftest:|passed|failed" "$out/nonvrtc-cli.log" | head -n 20
    "$java" "${jvm[@]}" "${none[@]}" -Xss4m -Dprimer.checkLaunches=true -jar .gpu/junit-console.jar execute \
        --class-path "$test_cp" --select-class dev.primer.gpu.WithoutNvrtcTest \
        --select-class dev.primer.gpu.GpuCustomReduceTest --select-class dev.primer.gpu.GpuCustomScanTest \
        --select-class dev.primer.gpu.GpuCustomSegmentedReduceTest --exclude-tag large --disable-banner \
        --details=tree --details-theme=ascii > "$out/nonvrtc-tests.log" 2>&1 || { echo "tests without NVRTC FAILED"; status=1; }
    grep -m 3 "no NVRTC" "$out/nonvrtc-tests.log"; tail -n 16 "$out/nonvrtc-tests.log"
    ;;
  *) echo "unknown stage $stage"; status=2 ;;
  esac
done
# The device tool brings back at most 8 files: the results (.md, .json, baselines.json, the chart)
# stay loose, the logs travel as one archive and the showcase's text as another. (Redirect this
# script's own output to a .txt file: a .log in $out is packed, and removed, with the logs.)
(cd "$out" && tar -czf "logs-${stages// /-}.tgz" --remove-files $(ls -d *.log junit 2>/dev/null)) || true
(cd "$out" && ls info.txt demo.txt ladder-*.txt > /dev/null 2>&1 \
    && tar -czf showcase.tgz --remove-files $(ls info.txt demo.txt ladder-*.txt 2>/dev/null)) || true
ls -la "$out"
exit $status
