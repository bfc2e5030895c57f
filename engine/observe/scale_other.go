//go:build !amd64 || purego

package observe

// rowsSIMD does nothing here: rows2 and rows3 do the whole row pass.
func rowsSIMD([]uint64, [3][]uint8, [3]uint64, bool) int { return 0 }

// columnTaps is empty here: columns3 does the whole column pass.
type columnTaps struct{}

func newColumnTaps([]tap3) columnTaps { return columnTaps{} }

func columnsSIMD([]uint8, []uint64, columnTaps) int { return 0 }
