base = zen5
name = zen5-next
# zen5 with the placement that fits four of the five skid kernels measured on Zen 5
placement = next
sample_retire = 0
