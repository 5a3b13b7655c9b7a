package tags

import "github.com/google/uuid"

// Namespace is the UUIDv5 namespace of every tag id. It is part of the
// stored data: changing it changes every id.
var Namespace = uuid.MustParse("4c750daf-c49f-454b-a4fa-6ab58e2d1f22")

// DimensionID is the id of the dimension key of businessID:
//
//	UUIDv5(Namespace, lower-case canonical text of businessID ‖ NormalizeText(key))
//
// The business id's text has a fixed length (36), so no two (business, key)
// pairs share a name. In PostgreSQL (uuid-ossp) the same id is
// uuid_generate_v5(namespace, business_id::text || key) for a normalised key.
// Keys are case-sensitive: "Project" and "project" are two dimensions.
func DimensionID(businessID uuid.UUID, key string) uuid.UUID {
	return uuid.NewSHA1(Namespace, []byte(businessID.String()+NormalizeText(key)))
}

// DefinitionID is the id of the value definition (key, value) of
// businessID: UUIDv5 with the dimension's id as namespace and the
// normalised value as name,
//
//	UUIDv5(DimensionID(businessID, key), NormalizeText(value))
//
// Nesting the namespaces keeps key and value apart: key "a" with value "bc"
// and key "ab" with value "c" are different definitions.
func DefinitionID(businessID uuid.UUID, key, value string) uuid.UUID {
	return uuid.NewSHA1(DimensionID(businessID, key), []byte(NormalizeText(value)))
}

// TagID is the id of the tag of definitionID on the entity entityID (a
// bank transaction, a bill payment...): UUIDv5(definitionID, entityID's
// text). Deterministic, so a retried or replayed tagging writes the same
// row instead of a duplicate.
func TagID(definitionID, entityID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(definitionID, []byte(entityID.String()))
}
