# A zen3 that retires 2 micro-ops a cycle and has one ALU: for ipcc sim --profile FILE.
base = zen3
name = narrow-zen3
retire = 2
alu_ports = 1
