#!/usr/bin/env bash
# Packs what a GPU machine needs to run Primer's GPU suite into .gpu/ (git-ignored, < 64 MiB):
#   .gpu/jdk.tar.xz      a jlink'd JDK 25 runtime (the GPU machines have no Java); rebuilt only when missing
#   .gpu/lib/*.jar       primer.jar (the CLI, with core and kernels), primer-core tests, JUnit console
#   .gpu/COMMIT          the git commit the bundle was built from
# Then, with the device tool: run `bash scripts/gpu-suite.sh [stages]` with carry [".gpu"].
# See docs/gpu-workflow.md.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
. "$root/scripts/jdk.sh"
cd "$root"
out=.gpu
mkdir -p "$out/lib"

echo "[bundle] building jars (kernels included; tests compiled, not run)"
mvn -q -B -DskipTests install
rm -f "$out"/lib/*.jar
cp primer-cli/target/primer.jar "$out/lib/"
cp primer-core/target/primer-core-*-tests.jar "$out/lib/primer-core-tests.jar"
# The test classpath (JUnit, jqwik, ...) and the console launcher that runs it.
mvn -q -B -pl primer-core dependency:copy-dependencies -DincludeScope=test -DexcludeGroupIds=dev.primer \
    -DoutputDirectory="$root/$out/lib"
mvn -q -B dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.11.4 \
    -DoutputDirectory="$root/$out/lib"
cp "$(ls "$out"/lib/junit-platform-console-standalone-*.jar)" "$out/junit-console.jar" && rm -f "$out"/lib/junit-platform-console-standalone-*.jar
git rev-parse --short=12 HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
git diff --quiet 2>/dev/null || echo "+dirty" >> "$out/COMMIT"

if [ ! -f "$out/jdk.tar.xz" ]; then
  echo "[bundle] jlink: java.base + jdk.incubator.vector (+ logging, management, xml for the test runner)"
  rm -rf "$out/jdk"
  jlink --add-modules java.base,jdk.incubator.vector,java.logging,java.management,jdk.unsupported,java.xml \
        --strip-debug --no-header-files --no-man-pages --output "$out/jdk"
  tar -C "$out" -cf - jdk | xz -T0 -6 > "$out/jdk.tar.xz"
  rm -rf "$out/jdk"
fi
du -sh "$out" | sed 's/^/[bundle] size: /'
