package chaos

// PartitionOf returns the partition Kafka's default partitioner (murmur2,
// as in the Java client and franz-go's StickyKeyPartitioner) gives a key
// among n partitions. The replay harness places records with it, so a plan
// with scope partition sees the partitions Kafka uses, in `evtool replay`
// and in replaytest alike.
func PartitionOf(key []byte, n int) int32 {
	if n <= 1 {
		return 0
	}
	return int32(int(murmur2(key)&0x7fffffff) % n)
}

// murmur2 is Kafka's murmur2 (Utils.murmur2 in the Java client).
func murmur2(b []byte) uint32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	h := seed ^ uint32(len(b))
	for len(b) >= 4 {
		k := uint32(b[3])<<24 + uint32(b[2])<<16 + uint32(b[1])<<8 + uint32(b[0])
		b = b[4:]
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
