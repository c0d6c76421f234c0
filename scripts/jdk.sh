# Sourced by the project's scripts: exports JAVA_HOME pointing at a JDK >= 22 (FFM is final there;
# Primer targets 25). Looks at JAVA_HOME first, then /usr/lib/jvm, then the java on PATH.
primer_java_version() { # prints the feature version of the JDK at $1, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}
primer_find_jdk() {
  local c v best="" bestv=0
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/* "$(dirname "$(dirname "$(readlink -f "$(command -v javac 2>/dev/null || echo /nonexistent)")")")"; do
    [ -n "$c" ] && [ -d "$c" ] || continue
    v=$(primer_java_version "$c")
    [ -n "$v" ] && [ "$v" -ge 22 ] || continue
    # JAVA_HOME wins when it is new enough; otherwise take the newest.
    if [ "$c" = "${JAVA_HOME:-}" ]; then best=$c; break; fi
    if [ "$v" -gt "$bestv" ]; then best=$c; bestv=$v; fi
  done
  [ -n "$best" ] || { echo "primer: no JDK >= 22 found (set JAVA_HOME, or install one under /usr/lib/jvm)" >&2; return 1; }
  export JAVA_HOME=$best
  export PATH="$JAVA_HOME/bin:$PATH"
}
primer_find_jdk
