package sample

// nodeMap maps the graph nodes of one sample to their local ids: an
// open-addressing hash table (linear probing, Fibonacci hashing) sized to
// the sample, not the graph, so that a Sampler's memory is bounded by the
// largest neighbourhood it has drawn whatever the graph's size, and a
// batch's lookups hit a table that fits in cache rather than an array of
// the graph's nodes.
type nodeMap struct {
	keys  []uint32 // node+1; 0 marks an empty slot
	vals  []int32
	shift uint32 // 32 − log2(len(keys))
	n     int
}

// nodeMapMinBits is the log2 of the smallest table.
const nodeMapMinBits = 10

// reset empties m, keeping its table: the cost is the table's size, which
// follows the largest sample drawn.
func (m *nodeMap) reset() {
	if m.keys == nil {
		m.alloc(nodeMapMinBits)
		return
	}
	clear(m.keys)
	m.n = 0
}

func (m *nodeMap) alloc(bits uint32) {
	m.keys = make([]uint32, 1<<bits)
	m.vals = make([]int32, 1<<bits)
	m.shift = 32 - bits
	m.n = 0
}

func (m *nodeMap) slot(v int32) uint32 { return (uint32(v) * 0x9e3779b1) >> m.shift }

// get returns v's local id, or −1 if v is not in the map.
func (m *nodeMap) get(v int32) int32 {
	k, mask := uint32(v)+1, uint32(len(m.keys)-1)
	for i := m.slot(v); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k:
			return m.vals[i]
		case 0:
			return -1
		}
	}
}

// put maps v (not in the map) to id, growing the table to keep it at
// most half full.
func (m *nodeMap) put(v, id int32) {
	if 2*(m.n+1) > len(m.keys) {
		m.grow()
	}
	m.insert(v, id)
}

func (m *nodeMap) insert(v, id int32) {
	k, mask := uint32(v)+1, uint32(len(m.keys)-1)
	i := m.slot(v)
	for m.keys[i] != 0 {
		i = (i + 1) & mask
	}
	m.keys[i], m.vals[i] = k, id
	m.n++
}

func (m *nodeMap) grow() {
	keys, vals := m.keys, m.vals
	m.alloc(32 - m.shift + 1)
	for i, k := range keys {
		if k != 0 {
			m.insert(int32(k-1), vals[i])
		}
	}
}

// bytes is the table's storage.
func (m *nodeMap) bytes() int { return 8 * len(m.keys) }
