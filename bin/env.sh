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
    if command -v mvn >/dev/null 2>&1; then
        MVN=mvn
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "Maven not found: installing the distribution's maven package..." >&2
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven) >&2 || true
    fi
    if ! command -v mvn >/dev/null 2>&1; then
        echo "error: Maven (3.8 or newer) is needed and was not found on PATH; install it (e.g. apt-get install maven)." >&2
        exit 2
    fi
    MVN=mvn
}

# Builds MODULE (and what it needs) unless its last build is newer than every source and pom.
ensure_built() {
    local module=$1
    local stamp="$ROOT/$module/target/.lakestream-built"
    if [ -f "$stamp" ] && [ -z "$(find "$ROOT" -path "$ROOT/*/target" -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.properties' \) -newer "$stamp" -print -quit)" ]; then
        return 0
    fi
    echo "Building $module (first run, or sources changed)..." >&2
    (cd "$ROOT" && "$MVN" -B -ntp -q install -DskipTests -pl "$module" -am) >&2 || {
        echo "error: the build of $module failed (see above)" >&2
        exit 1
    }
    touch "$stamp"
}

# Runs a main class of MODULE with its runtime class path and the JVM flags the project needs.
run_java() {
    local module=$1 main=$2
    shift 2
    local flags
    flags=$(sed -n 's:.*<lakestream.test.jvm.flags>\(--[^<]*\)</lakestream.test.jvm.flags>.*:\1:p' "$ROOT/pom.xml" | head -1)
    # only Trino needs the incubating vector API; elsewhere it just prints a warning
    [ "${LAKESTREAM_VECTOR_API:-}" = 1 ] || flags=${flags//--add-modules=jdk.incubator.vector/}
    # a module may add JVM flags of its own (Spark: what its launcher adds to every JVM)
    flags="$flags $(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' "$ROOT/$module/pom.xml")"
    # shellcheck disable=SC2086
    exec "$JAVA_HOME/bin/java" ${LAKESTREAM_JAVA_OPTS:--Xmx2g} $flags -cp "$ROOT/$module/target/classes:$(cat "$ROOT/$module/target/runtime-classpath.txt")" "$main" "$@"
}
