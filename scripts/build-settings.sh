# The build CI's scripts share (sourced): release, with testing enabled so
# `swift test` runs on the same objects. Built once, it serves the test
# suite, the example, the speed guard and fuzzing. The speed guard counts
# the same instructions a record in it as in a plain release build (the
# hot per-record properties are unchecked for that); scripts/pktbench.sh
# builds plain release for use.
build_settings=(-c release -Xswiftc -enable-testing)
