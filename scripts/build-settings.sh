# The one build every script shares (sourced): release, with testing
# enabled so `swift test` runs on the same objects. Built once, it serves
# the test suite, the example, the speed guard, fuzzing and the user's
# pktbench; -enable-testing keeps internal symbols visible to the tests and
# changes nothing else a run does.
build_settings=(-c release -Xswiftc -enable-testing)
