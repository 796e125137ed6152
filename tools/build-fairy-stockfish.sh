#!/bin/sh
# Builds Fairy-Stockfish as a UCI program from the sources in PyPI's pyffish sdist, for engine
# matches (crates/uci/examples/uci_match.rs; see BENCHMARKS.md, "Strength against
# Fairy-Stockfish"). Needs pip and g++. Usage: tools/build-fairy-stockfish.sh [OUT_DIR]
# The binary lands in OUT_DIR/fairy-stockfish (default /tmp/fairy-stockfish-build).
#
# Flags: 64-bit boards (no LARGEBOARDS: every variant here is 8x8), POPCNT/SSE4.1, and no
# embedded NNUE net (the sdist has none), so it plays with its classical evaluation.
set -eu
OUT=${1:-/tmp/fairy-stockfish-build}
VERSION=0.0.90
mkdir -p "$OUT"
cd "$OUT"
if [ ! -d "pyffish-$VERSION" ]; then
    pip download --no-deps --no-binary :all: "pyffish==$VERSION" -d .
    tar xzf "pyffish-$VERSION.tar.gz"
fi
SRC="$OUT/pyffish-$VERSION/src"
cat > Makefile <<MAKE
SRC := \$(filter-out %/pyffish.cpp %/ffishjs.cpp,\$(wildcard $SRC/*.cpp $SRC/syzygy/*.cpp $SRC/nnue/*.cpp $SRC/nnue/features/*.cpp))
OBJ := \$(patsubst $SRC/%.cpp,obj/%.o,\$(SRC))
CXXFLAGS := -std=c++17 -O3 -DNDEBUG -DIS_64BIT -DUSE_POPCNT -mpopcnt -msse4.1 -DUSE_SSE41 -mssse3 -DUSE_SSSE3 -msse2 -DUSE_SSE2 -DNNUE_EMBEDDING_OFF -Wno-date-time
fairy-stockfish: \$(OBJ)
	\$(CXX) -O3 -o \$@ \$^ -lpthread
obj/%.o: $SRC/%.cpp
	@mkdir -p \$(dir \$@)
	\$(CXX) \$(CXXFLAGS) -c \$< -o \$@
MAKE
make -j"$(nproc)"
printf 'uci\nquit\n' | ./fairy-stockfish | head -1
echo "built $OUT/fairy-stockfish"
