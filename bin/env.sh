# Sourced by ./lakestream and .ci/run: finds a JDK 25 and Maven, or says clearly what is missing.

java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1
}

find_jdk25() {
    local candidate
    for candidate in "${LAKESTREAM_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/jdk-25*; do
        if [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate")" -ge 25 ] 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    if command -v java >/dev/null 2>&1; then
        candidate=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        if [ "$(java_major "$candidate")" -ge 25 ] 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    fi
    return 1
}

setup_java() {
    if ! JAVA_HOME=$(find_jdk25); then
        echo "error: Lakestream needs a JDK 25 (Trino 483 is built for Java 25) and none was found." >&2
        echo "       Looked at \$LAKESTREAM_JAVA_HOME, \$JAVA_HOME, /usr/lib/jvm/*25* and the java on PATH." >&2
        echo "       Install one (e.g. the Temurin 25 JDK) and set JAVA_HOME to it." >&2
        exit 2
    fi
    export JAVA_HOME
    export PATH="$JAVA_HOME/bin:$PATH"
}

setup_maven() {
    # Maven's own Guava uses sun.misc.Unsafe, which JDK 25 (set up by setup_java) warns about on every run
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
    MVN=mvn
    command -v mvn >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "Maven not found: installing the distribution's maven package..." >&2
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven) >&2 || true
    fi
    if ! command -v mvn >/dev/null 2>&1; then
        echo "error: Maven (3.8 or newer) is needed and was not found on PATH; install it (e.g. apt-get install maven)." >&2
        exit 2
    fi
}

# Builds MODULE (and what it needs) unless its last build is newer than every source and pom, and
# writes the class path to run it with: SCOPE runtime (a product module) or test (the embedded
# Trino, which runs on Trino's testing server).
ensure_built() {
    local module=$1 scope=${2:-runtime}
    local stamp="$ROOT/$module/target/.lakestream-built-$scope"
    if [ -f "$stamp" ] && [ -z "$(find "$ROOT" -path "$ROOT/*/target" -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.properties' \) -newer "$stamp" -print -quit)" ]; then
        return 0
    fi
    echo "Building $module and what it needs (the first build downloads dependencies and takes a few minutes)..." >&2
    # formatting is checked by the test command, not when building to run
    (cd "$ROOT" && "$MVN" -B -ntp -q install -DskipTests -Dspotless.check.skip=true -pl "$module" -am \
        && "$MVN" -B -ntp -q dependency:build-classpath -pl "$module" -Dmdep.includeScope="$scope" \
            -Dmdep.outputFile="$ROOT/$module/target/$scope-classpath.txt") >&2 || {
        echo "error: the build of $module failed (see above)" >&2
        exit 1
    }
    touch "$stamp"
}

# The JVM settings Trino's documentation recommends for a server's jvm.config, for the JVMs that run Trino
# (the embedded server and the Trino benchmark): 32 MB G1 regions, so that Parquet column chunks of a few
# MB are not humongous objects (each such allocation started a concurrent cycle), a code cache and
# recompilation limits large enough that the JIT does not give up on hot methods.
TRINO_JVM_FLAGS="-XX:+UseG1GC -XX:G1HeapRegionSize=32M -XX:+ExplicitGCInvokesConcurrent -XX:ReservedCodeCacheSize=512M \
-XX:PerMethodRecompilationCutoff=10000 -XX:PerBytecodeRecompilationCutoff=10000 -XX:-OmitStackTraceInFastThrow \
-Djdk.nio.maxCachedBufferSize=2000000"

# Runs MAIN of MODULE with the class path ensure_built wrote and the JVM flags the project needs.
run_java() {
    local module=$1 scope=$2 main=$3
    shift 3
    local flags classpath
    flags=$(sed -n 's:.*<lakestream.test.jvm.flags>\(--[^<]*\)</lakestream.test.jvm.flags>.*:\1:p' "$ROOT/pom.xml" | head -1)
    # only Trino needs the incubating vector API; elsewhere it just prints a warning
    [ "$module" = trino-plugin ] || flags=${flags//--add-modules=jdk.incubator.vector/}
    # a module may add JVM flags of its own (Spark: what its launcher adds to every JVM)
    flags="$flags $(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' "$ROOT/$module/pom.xml")"
    classpath="$ROOT/$module/target/classes:$(cat "$ROOT/$module/target/$scope-classpath.txt")"
    # a jar the program loads in a class loader of its own stays off the class path (e.g. Spark's stock
    # Iceberg runtime, whose relocated Parquet clashes with ours)
    if [ -n "${LAKESTREAM_CLASSPATH_EXCLUDE:-}" ]; then
        classpath=$(tr ':' '\n' <<< "$classpath" | grep -v -- "$LAKESTREAM_CLASSPATH_EXCLUDE" | paste -sd:)
    fi
    [ "$scope" = test ] && classpath="$ROOT/$module/target/test-classes:$classpath"
    # shellcheck disable=SC2086
    "$JAVA_HOME/bin/java" ${LAKESTREAM_JAVA_OPTS:--Xmx2g} $flags -cp "$classpath" "$main" "$@"
}

exec_java() {
    run_java "$@"
    exit $?
}
