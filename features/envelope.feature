@envelope
Feature: The envelope and refused requests
  Every answer of the service is JSON and carries the envelope: an error
  object whose code "0" means the request was correctly processed.
  Business outcomes of a payment travel in the payload; other codes refuse
  the request.

  @core @req:ENV-01 @req:ENV-02
  Scenario: Every answer is JSON and carries the envelope, processed or refused
    When the merchant creates a payment
    Then the answer is JSON
    And the answer carries the envelope
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the answer is JSON
    And the answer carries the envelope
    When the merchant creates a payment
    And the buyer pays with the card enrolled in 3-D Secure
    Then the answer is JSON
    And the answer carries the envelope
    When the merchant creates a payment with the API key "not-the-merchants-key"
    Then the answer is JSON
    And the answer carries the envelope
    When the buyer pays with the card not enrolled in 3-D Secure under an unknown payment token
    Then the answer is JSON
    And the answer carries the envelope

  @core @req:ENV-03 @req:ENV-04 @production-safe
  Scenario: A body that is not JSON is answered with the envelope and not processed
    When the merchant sends this body to create:
      """
      shopLogin={shopLogin}&amount=10.00
      """
    Then the answer is JSON
    And the answer carries the envelope
    And the request is not correctly processed

  @core @req:ENV-03 @production-safe
  Scenario: A JSON body labelled text/plain is answered with the envelope
    When the merchant creates a payment sent as "text/plain"
    Then the answer is JSON
    And the answer carries the envelope

  @core @req:ENV-03 @production-safe
  Scenario: A create missing a field is answered with the envelope
    When the merchant creates a payment without amount
    Then the answer is JSON
    And the answer carries the envelope

  @core @req:ENV-03 @production-safe
  Scenario: A GET to an API path is answered with the envelope
    When the merchant sends a GET request to "/api/v1/payment/create/"
    Then the answer is JSON
    And the answer carries the envelope

  @core @req:ENV-03 @production-safe
  Scenario: A POST to an unknown path under /api/v1/ is answered with the envelope
    When the merchant sends a POST request to "/api/v1/payconf/no-such-operation/"
    Then the answer is JSON
    And the answer carries the envelope

  @reference @req:REF-REQ-01 @req:REF-ENV-01 @production-safe
  Scenario Outline: A body that is not a JSON object is refused: <body>
    When the merchant sends this body to create:
      """
      <body>
      """
    Then the request is refused with HTTP 400 and code "1105"

    Examples:
      | body                      |
      | {"shopLogin": "DEMO_SHOP" |
      | not json                  |
      | ["DEMO_SHOP", "10.00"]    |

  @reference @req:REF-REQ-02 @req:REF-ENV-01 @production-safe
  Scenario Outline: A body not sent as application/json is refused: <media type>
    When the merchant creates a payment sent as "<media type>"
    Then the request is refused with HTTP 415 and code "9415"

    Examples:
      | media type                        |
      | text/plain                        |
      | application/x-www-form-urlencoded |
      | text/json                         |

  @reference @req:REF-REQ-03 @req:REF-ENV-01 @production-safe
  Scenario: A body over 64 KiB is refused
    When the merchant creates a payment with a body of 70000 bytes
    Then the request is refused with HTTP 413 and code "9413"

  @reference @req:REF-REQ-04 @req:REF-ENV-01 @production-safe
  Scenario: An unknown path answers 404 with the envelope
    When the merchant sends a POST request to "/api/v1/payment/payconf-no-such-operation/"
    Then the request is refused with HTTP 404 and code "9404"

  @reference @req:REF-REQ-04 @req:REF-ENV-01 @production-safe
  Scenario: Another method than POST answers 405 and says which
    When the merchant sends a GET request to "/api/v1/payment/create/"
    Then the request is refused with HTTP 405 and code "9405"
    And the answer's Allow header is "POST"
