package httpx

import "github.com/gofiber/fiber/v2"

// envelope is the spec's success wrapper.
type envelope struct {
	Data any `json:"data"`
}

type listEnvelope struct {
	Data any `json:"data"`
	Meta any `json:"meta"`
}

// OK writes 200 {"data": data}.
func OK(c *fiber.Ctx, data any) error {
	return c.Status(fiber.StatusOK).JSON(envelope{Data: data})
}

// Created writes 201 {"data": data}.
func Created(c *fiber.Ctx, data any) error {
	return c.Status(fiber.StatusCreated).JSON(envelope{Data: data})
}

// List writes 200 {"data": data, "meta": meta}.
func List(c *fiber.Ctx, data any, meta any) error {
	return c.Status(fiber.StatusOK).JSON(listEnvelope{Data: data, Meta: meta})
}

// Saved answers a create that may repeat an earlier one (same external_id
// or idempotency key): 201 with data when it was created now, 200 with the
// stored one otherwise.
func Saved(c *fiber.Ctx, created bool, data any) error {
	if created {
		return Created(c, data)
	}
	return OK(c, data)
}
