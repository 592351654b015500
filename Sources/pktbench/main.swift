print("pktbench")
