@authentication
Feature: Authentication
  payment/create is authenticated by the merchant's API key in the
  Authorization header; payment/submit by the payment token create returned.

  @core @req:AUTH-01 @req:ENV-01 @req:ENV-02 @production-safe
  Scenario: A create without the Authorization header is not processed
    When the merchant creates a payment without the Authorization header
    Then the answer carries the envelope
    And the request is not correctly processed
    And no payment token is issued

  @core @req:AUTH-02 @req:ENV-01 @req:ENV-02 @production-safe
  Scenario: A create with a key that is not the merchant's is not processed
    When the merchant creates a payment with the API key "not-the-merchants-key"
    Then the answer carries the envelope
    And the request is not correctly processed
    And no payment token is issued

  @core @req:AUTH-03 @req:ENV-01 @req:ENV-02
  Scenario: Only the payment token create returned executes the payment
    Given a payment created by the merchant
    When the buyer pays with the card not enrolled in 3-D Secure under an unknown payment token
    Then the answer carries the envelope
    And no payment is executed
    When the buyer pays with the card not enrolled in 3-D Secure without a payment token
    Then the answer carries the envelope
    And no payment is executed
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the payment is executed

  @reference @req:REF-AUTH-01 @req:REF-ENV-01 @production-safe
  Scenario: A create without the Authorization header is refused with 1171
    When the merchant creates a payment without the Authorization header
    Then the request is refused with HTTP 403 and code "1171"
    And the error description says "missing authentication header", in any order of its words

  @reference @req:REF-AUTH-02 @req:REF-ENV-01 @production-safe
  Scenario Outline: A create with a wrong key or scheme is refused with 1166: <header>
    When the merchant creates a payment with the Authorization header "<header>"
    Then the request is refused with HTTP 403 and code "1166"

    Examples:
      | header                  |
      | apikey wrong-key        |
      | Bearer {api_key}        |
      | {api_key}               |

  @reference @req:REF-AUTH-03 @req:REF-ENV-01
  Scenario: A submit without a payment token is refused with 1171
    Given a payment created by the merchant
    When the buyer pays with the card not enrolled in 3-D Secure without a payment token
    Then the request is refused with HTTP 403 and code "1171"
    And the error description says "missing authentication header", in any order of its words

  @reference @req:REF-AUTH-03 @req:REF-ENV-01
  Scenario: A submit with a payment token that is not a UUID is refused with 1170
    When the buyer pays with the card not enrolled in 3-D Secure under the payment token "not-a-uuid"
    Then the request is refused with HTTP 403 and code "1170"

  @reference @req:REF-AUTH-04 @req:REF-ENV-01
  Scenario: A submit with a token the service never issued is refused with 1170
    When the buyer pays with the card not enrolled in 3-D Secure under an unknown payment token
    Then the request is refused with HTTP 403 and code "1170"
