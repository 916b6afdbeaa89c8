# goldencove with the move fusion that ipcc bench --fit-profile measured on a Granite
# Rapids-class core (tests/data/sim/mov_fusion.s)
base = goldencove
name = goldencove-mov-fusion
fuse_mov_alu = 1
