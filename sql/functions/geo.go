package functions

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// Earth radii ksqlDB uses for GEO_DISTANCE.
const (
	earthRadiusKM    = 6371.0
	earthRadiusMiles = 3959.0
)

func geoDefs() []ScalarDef {
	return []ScalarDef{{Name: "GEO_DISTANCE", Category: CatMath,
		Description: "Compute the distance between two points on the surface of the earth, according to the " +
			"Haversine formula for \"great circle distance\".",
		Overloads: []Overload{
			{Sig: "GEO_DISTANCE(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2) DOUBLE", Fn: geoDistance,
				Description: "The 2 input points should be specified as (lat, lon) pairs, measured in decimal " +
					"degrees. The distance returned is in kilometers."},
			{Sig: "GEO_DISTANCE(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2, STRING units) DOUBLE",
				Fn: geoDistance, NullAware: true,
				Description: "The 2 input points should be specified as (lat, lon) pairs, measured in decimal " +
					"degrees. The fifth parameter selects the unit of the result: 'MI' (miles) or 'KM' " +
					"(kilometers, also the default when NULL or empty)."},
		}}}
}

func geoDistance(args []any) (any, error) {
	for _, a := range args[:4] {
		if a == nil {
			return nil, nil
		}
	}
	lat1, lon1, lat2, lon2 := args[0].(float64), args[1].(float64), args[2].(float64), args[3].(float64)
	if err := checkLatLon(lat1, lon1, lat2, lon2); err != nil {
		return nil, err
	}
	radius := earthRadiusKM
	if len(args) > 4 {
		units, _ := args[4].(string)
		var err error
		if radius, err = earthRadius(units); err != nil {
			return nil, err
		}
	}
	dLat, dLon := degToRadians(lat2-lat1), degToRadians(lon2-lon1)
	a := haversin(dLat) + haversin(dLon)*java.Cos(degToRadians(lat1))*java.Cos(degToRadians(lat2))
	return 2 * java.StrictAsin(math.Sqrt(a)) * radius, nil
}

func checkLatLon(lat1, lon1, lat2, lon2 float64) error {
	if lat1 < -90 || lat2 < -90 || lat1 > 90 || lat2 > 90 {
		return errors.New("valid latitude values for GeoDistance function are in the range of -90 to 90 decimal degrees")
	}
	if lon1 < -180 || lon2 < -180 || lon1 > 180 || lon2 > 180 {
		return errors.New("valid longitude values for GeoDistance function are in the range of -180 to +180 decimal degrees")
	}
	return nil
}

func earthRadius(units string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(units)) {
	case "", "km", "kilometer", "kilometers", "kilometre", "kilometres":
		return earthRadiusKM, nil
	case "mi", "mile", "miles":
		return earthRadiusMiles, nil
	}
	return 0, fmt.Errorf("GeoDistance function units parameter must be one of mi, mile, miles, km, kilometer, " +
		"kilometers, kilometre or kilometres. Values are case-insensitive")
}

// degToRadians converts as ksqlDB's results show (deg / 180 * π, which
// rounds differently from deg * (π / 180)).
func degToRadians(deg float64) float64 { return deg / 180 * math.Pi }

// haversin is sin²(v/2); Java's pow(x, 2) is exactly x*x.
func haversin(v float64) float64 {
	s := java.Sin(v / 2)
	return s * s
}
